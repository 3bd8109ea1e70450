import { RequestValidationError } from "../../../../src/client";
import { loopbackClients } from "../../../helpers/loopback";

// An id can never move the request's path: `.` and `..` survive percent-encoding and URL
// parsing then removes them (`pods.delete("..")` went out as `DELETE /v2/`). Against a loopback
// server that answers anything with 200, so a request that reached it would not fail by itself.

const { setup } = loopbackClients("cp_test_dot_ids_0025");
const anything = () => ({ status: 200, body: { id: "x", status: "COMPLETED", output: {} } });

test.each(["", ".", ".."])("id %j: every by-id call is refused before anything is sent", async (id) => {
  const { cp, srv } = await setup(anything);
  const calls: [string, () => Promise<unknown>][] = [
    ["pods.get", () => cp.pods.get(id)],
    ["pods.update", () => cp.pods.update(id, { name: "n" })],
    ["pods.action", () => cp.pods.action(id, "stop")],
    ["pods.delete", () => cp.pods.delete(id)],
    ["templates.get", () => cp.templates.get(id)],
    ["templates.delete", () => cp.templates.delete(id)],
    ["networkVolumes.delete", () => cp.networkVolumes.delete(id)],
    ["registries.delete", () => cp.registries.delete(id)],
    ["catalog.gpu", () => cp.catalog.gpu(id)],
    ["models.runSync", () => cp.models.runSync(id, { prompt: "p" })],
  ];
  for (const [name, call] of calls) {
    const err = await (async () => call())().catch((e: unknown) => e);
    expect([name, err]).toEqual([name, expect.any(RequestValidationError)]);
    expect((err as RequestValidationError).issues[0].path).toBe("id");
  }
  expect(srv.seen).toEqual([]);
});

test("ids with dots, slashes and escapes that are not dot segments stay one encoded segment", async () => {
  const { cp, srv } = await setup(() => ({ status: 204 }));
  for (const id of ["...", ".a", "a/../b", "%2e%2e", "a?b#c"]) await cp.pods.delete(id);
  expect(srv.seen.map((r) => r.url)).toEqual([
    "/v2/pods/...",
    "/v2/pods/.a",
    "/v2/pods/a%2F..%2Fb",
    "/v2/pods/%252e%252e",
    "/v2/pods/a%3Fb%23c",
  ]);
});
