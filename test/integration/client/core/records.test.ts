import { AmbiguousRequestError, NotFoundError, ResponseValidationError, unreadableOf } from "../../../../src/client";
import { loopbackClients, wireEndpoint, wireGpuType, wirePod } from "../../../helpers/loopback";

// One odd record never blinds a client: a hostile loopback server puts, beside ordinary
// records, one with a status this release does not know, one with a number past any integer
// the client reads, one with a GPU manufacturer it has never heard of. Every list still answers
// the others, names the odd ones in `unreadable`, and an odd record never passes for absent.

const { setup } = loopbackClients("cp_test_odd_records_0025");

const good = wirePod({ id: "pod-good", name: "good" });
const newStatus = wirePod({ id: "pod-new-status", name: "migrating", status: "MIGRATING" });
const hugeDisk = wirePod({ id: "pod-huge-disk", name: "huge", disk: 1e20 });

const template = (over: Record<string, unknown> = {}) => ({
  id: "tpl-good",
  name: "worker",
  image: "img:1",
  args: "",
  disk: 20,
  ports: [],
  env: {},
  registry: null,
  mounts: {},
  serverless: false,
  public: false,
  category: "NVIDIA",
  ...over,
});

const gpu = wireGpuType;

test("a pod list with a new status and an out-of-range disk answers the readable pod and names the other two", async () => {
  const { cp } = await setup((r) => (r.path === "/v2/pods" ? { status: 200, body: { pods: [newStatus, good, hugeDisk] } } : { status: 404, body: {} }));
  const pods = await cp.pods.list();
  expect(pods.map((p) => p.id)).toEqual(["pod-good"]);
  expect(unreadableOf(pods)).toEqual([
    { index: 0, id: "pod-new-status", name: "migrating", issues: [{ path: "status", message: expect.stringContaining('"RUNNING"') }] },
    { index: 2, id: "pod-huge-disk", name: "huge", issues: [{ path: "disk", message: expect.any(String) }] },
  ]);
  expect(pods.unreadable).toBe(unreadableOf(pods));
  // The look-up by name finds the readable pod through the odd ones.
  await expect(cp.pods.findByName("good")).resolves.toMatchObject({ id: "pod-good" });
});

test("a template list with one record of disk 1e20 answers the others", async () => {
  const { cp } = await setup(() => ({ status: 200, body: { templates: [template({ id: "tpl-odd", disk: 1e20 }), template()] } }));
  const templates = await cp.templates.list();
  expect(templates.map((t) => t.id)).toEqual(["tpl-good"]);
  expect(templates.unreadable.map((u) => [u.id, u.issues.map((i) => i.path)])).toEqual([["tpl-odd", ["disk"]]]);
});

test("a GPU type from a manufacturer the client does not know leaves the rest of the catalog readable", async () => {
  const { cp } = await setup(() => ({ status: 200, body: { gpus: [gpu(), gpu({ id: "Some New Accelerator", manufacturer: "NEWCO" })] } }));
  const gpus = await cp.catalog.gpus();
  expect(gpus.map((g) => g.id)).toEqual(["NVIDIA GeForce RTX 4090"]);
  expect(gpus.unreadable.map((u) => [u.id, u.issues[0].path])).toEqual([["Some New Accelerator", "manufacturer"]]);
});

test("a record with no readable id is still counted, by its place in the answer", async () => {
  const { cp } = await setup(() => ({ status: 200, body: { pods: [good, 42, { id: 7 }] } }));
  const pods = await cp.pods.list();
  expect(pods.map((p) => p.id)).toEqual(["pod-good"]);
  expect(pods.unreadable.map((u) => [u.index, u.id])).toEqual([
    [1, undefined],
    [2, undefined],
  ]);
});

test("an endpoint whose record cannot be read is never reported absent by get", async () => {
  const { cp } = await setup(() => ({
    status: 200,
    body: { data: { myself: { endpoints: [wireEndpoint({ id: "ep-odd", workersMax: 1e20 }), wireEndpoint({ id: "ep-1" })], serverlessDiscount: null } } },
  }));
  const all = await cp.endpoints.list();
  expect(all.map((e) => e.id)).toEqual(["ep-1"]);
  await expect(cp.endpoints.get("ep-1")).resolves.toMatchObject({ id: "ep-1" });
  const err = await cp.endpoints.get("ep-odd").catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ResponseValidationError);
  expect(err).not.toBeInstanceOf(NotFoundError);
  expect((err as Error).message).toMatch(/"ep-odd".*workersMax/);
  await expect(cp.endpoints.get("ep-absent")).rejects.toBeInstanceOf(NotFoundError);
});

test("after an ambiguous create, an unreadable record of the same name stops a second create", async () => {
  const { cp, srv } = await setup((r) => {
    if (r.method === "POST") return { destroy: true };
    return { status: 200, body: { pods: [good, wirePod({ id: "pod-made", name: "trainer", status: "MIGRATING" })] } };
  });
  const err = await cp.pods.create({ name: "trainer", image: "img:1", gpu: { id: "NVIDIA A100" } }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AmbiguousRequestError);
  expect((err as Error).message).toMatch(/cannot be read/);
  expect(srv.count("POST", "/v2/pods")).toBe(1);
});
