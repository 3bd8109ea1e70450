// Network volumes (network-volumes.ts) against a scripted loopback server: each call's verb and
// path, its params checked against the contract before anything is sent (size 10..4096, a name
// and a data center, an update that sets something), a create that never makes two (after an
// ambiguous answer the volume is looked up by name, size, data center and type, and with
// seenBefore only a volume that was not there), a list that carries the records it cannot read,
// and a delete whose retry finds the volume gone.
import { ConflictError, RequestValidationError } from "../../../src/client";
import { type Handler, loopbackClients } from "../../helpers/loopback";

const KEY = "cp_sentinel_volumes_3f9a";
const { setup } = loopbackClients(KEY);
const volume = (over: Record<string, unknown> = {}) => ({ id: "v1", name: "data", size: 50, dataCenter: "EU-RO-1", type: "STANDARD", ...over });
const params = { name: "data", size: 50, dataCenter: "EU-RO-1" };
/** Answers a create with `create`, and every list with `listed`. */
const createAndList = (create: Handler, listed: unknown[]): Handler => (req, i) =>
  req.method === "GET" && req.path === "/v2/network-volumes" ? { status: 200, body: { networkVolumes: listed } } : create(req, i);

describe("requests", () => {
  test("each call's verb and path, the id as one encoded segment, the body as given", async () => {
    const { srv, cp } = await setup((req) => (req.method === "DELETE" ? { status: 204 } : { status: 200, body: volume() }));
    await cp.networkVolumes.get("a/b");
    await cp.networkVolumes.update("v1", { size: 100 });
    await cp.networkVolumes.delete("v1");
    expect(srv.seen.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /v2/network-volumes/a%2Fb", "PATCH /v2/network-volumes/v1", "DELETE /v2/network-volumes/v1"]);
    expect(JSON.parse(srv.seen[1].body)).toEqual({ size: 100 });
  });

  test.each([
    ["a size under the contract's 10 GB", { ...params, size: 9 }, "size must be >= 10"],
    ["a size over 4096 GB", { ...params, size: 4097 }, "size must be <= 4096"],
    ["no data center", { name: "data", size: 50 }, "dataCenter is required"],
    ["an empty name", { ...params, name: "" }, "name must be at least 1 character(s) long"],
    ["a type the contract does not list", { ...params, type: "FAST" }, 'type must be one of "STANDARD", "HIGH_PERFORMANCE"'],
    ["a field the contract does not have", { ...params, region: "EU" }, "region is not an allowed property"],
  ])("a create with %s is refused before anything is sent", async (_, bad, message) => {
    const { srv, cp } = await setup(() => ({ status: 200, body: volume() }));
    const err = await cp.networkVolumes.create(bad as never).catch((e) => e);
    expect(err).toBeInstanceOf(RequestValidationError);
    expect(err.message).toContain(message);
    expect(srv.seen).toHaveLength(0);
  });

  test("an update must set a name or a size (the contract's minProperties: 1), and only those", async () => {
    const { srv, cp } = await setup(() => ({ status: 200, body: volume() }));
    await expect(cp.networkVolumes.update("v1", {})).rejects.toThrow("must set name or size (an empty update is refused)");
    await expect(cp.networkVolumes.update("v1", { dataCenter: "US" } as never)).rejects.toThrow("dataCenter is not an allowed property");
    expect(srv.seen).toHaveLength(0);
  });

  test("a refusal before sending is a rejected promise, as every answer is, never a throw at the call", async () => {
    const { srv, cp } = await setup(() => ({ status: 200, body: volume() }));
    for (const call of [() => cp.networkVolumes.get(".."), () => cp.networkVolumes.update("..", { size: 20 }), () => cp.networkVolumes.update("v1", {})]) {
      let answer: Promise<unknown> | undefined;
      expect(() => (answer = call())).not.toThrow();
      await expect(answer).rejects.toBeInstanceOf(RequestValidationError);
    }
    expect(srv.seen).toHaveLength(0);
  });

  test("a delete retried after a 5xx that finds the volume gone is done; a 409 (still mounted) is the caller's", async () => {
    const gone = await setup((_, i) => (i === 0 ? { status: 503, body: {} } : { status: 404, body: { title: "Not found" } }));
    await expect(gone.cp.networkVolumes.delete("v1")).resolves.toBeUndefined();
    expect(gone.srv.seen).toHaveLength(2);
    const mounted = await setup(() => ({ status: 409, body: { title: "Conflict", detail: "mounted by pod p1" } }));
    await expect(mounted.cp.networkVolumes.delete("v1")).rejects.toBeInstanceOf(ConflictError);
  });

  test("a list answers the volumes it can read and carries the others", async () => {
    const { cp } = await setup(() => ({ status: 200, body: { networkVolumes: [volume(), volume({ id: "v2", name: "odd", type: "TAPE" })] } }));
    const list = await cp.networkVolumes.list();
    expect(list.map((v) => v.id)).toEqual(["v1"]);
    expect(list.unreadable).toEqual([{ index: 1, id: "v2", name: "odd", issues: [{ path: "type", message: 'must be one of "STANDARD", "HIGH_PERFORMANCE"' }] }]);
  });
});

describe("a create that never makes two", () => {
  test("after an ambiguous answer, the volume of that name, size, data center and type is the result: one POST", async () => {
    const { srv, cp } = await setup(
      createAndList(() => ({ status: 502, body: {} }), [volume({ id: "other-size", size: 10 }), volume({ id: "other-dc", dataCenter: "US-TX-3" }), volume({ id: "made" })]),
    );
    await expect(cp.networkVolumes.create({ ...params, type: "STANDARD" })).resolves.toMatchObject({ id: "made" });
    expect(srv.count("POST", "/v2/network-volumes")).toBe(1);
  });

  test("none that matches: the create is sent again", async () => {
    const { srv, cp } = await setup(
      createAndList((_, i) => (i === 0 ? { status: 502, body: {} } : { status: 200, body: volume({ id: "second" }) }), [volume({ id: "hp", type: "HIGH_PERFORMANCE" })]),
    );
    await expect(cp.networkVolumes.create({ ...params, type: "STANDARD" })).resolves.toMatchObject({ id: "second" });
    expect(srv.count("POST", "/v2/network-volumes")).toBe(2);
  });

  test("a type left out matches a volume of any type", async () => {
    const { cp } = await setup(createAndList(() => ({ status: 502, body: {} }), [volume({ id: "hp", type: "HIGH_PERFORMANCE" })]));
    await expect(cp.networkVolumes.create(params)).resolves.toMatchObject({ id: "hp" });
  });

  test("with seenBefore, a volume that was there before is never the one made", async () => {
    const { srv, cp } = await setup(
      createAndList((_, i) => (i === 0 ? { status: 502, body: {} } : { status: 200, body: volume({ id: "new" }) }), [volume({ id: "old" })]),
    );
    await expect(cp.networkVolumes.create(params, { seenBefore: new Set(["old"]) })).resolves.toMatchObject({ id: "new" });
    expect(srv.count("POST", "/v2/network-volumes")).toBe(2);
  });

  test("two new volumes that match cannot be told apart: it fails rather than guess", async () => {
    const { cp } = await setup(createAndList(() => ({ status: 502, body: {} }), [volume({ id: "n1" }), volume({ id: "n2" })]));
    await expect(cp.networkVolumes.create(params, { seenBefore: new Set() })).rejects.toThrow('2 records named "data" appeared since the create began (n1, n2)');
  });
});
