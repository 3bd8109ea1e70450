// Templates (templates.ts) against a scripted loopback server: the path, verb and body each
// method sends, the params refused before sending, and the create that never makes two.
import { ConflictError, RequestValidationError, UnprocessableEntityError } from "../../../src/client";
import { loopbackClients, type SeenRequest, wireTemplate } from "../../helpers/loopback";

const { setup } = loopbackClients("cp_test_loopback_key_0013");

const body = (r: SeenRequest) => JSON.parse(r.body);

describe("templates", () => {
  test("create POSTs the params as given and answers the Template", async () => {
    const { srv, cp } = await setup(() => ({ status: 201, body: wireTemplate() }));
    const params = {
      name: "worker",
      image: "img:1",
      serverless: true,
      disk: 20,
      ports: ["8000/http"],
      env: { A: "1" },
      mounts: { persistent: { size: 20, path: "/workspace" } },
      category: "NVIDIA" as const,
    };
    await expect(cp.templates.create(params)).resolves.toMatchObject({ id: "tpl-1", serverless: true });
    expect(srv.seen.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /v2/templates"]);
    expect(body(srv.seen[0])).toEqual(params);
  });

  test("get, list, update and delete: one request each, the id percent-encoded", async () => {
    const { srv, cp } = await setup((r) =>
      r.method === "DELETE"
        ? { status: 204 }
        : r.path === "/v2/templates"
          ? { status: 200, body: { templates: [wireTemplate(), wireTemplate({ id: "tpl-2", serverless: false })] } }
          : { status: 200, body: wireTemplate({ name: "renamed" }) },
    );
    await expect(cp.templates.get("tpl/1 x")).resolves.toMatchObject({ id: "tpl-1" });
    await expect(cp.templates.list()).resolves.toHaveLength(2);
    await expect(cp.templates.update("tpl-1", { name: "renamed", mounts: {} })).resolves.toMatchObject({ name: "renamed" });
    await expect(cp.templates.delete("tpl-1")).resolves.toBeUndefined();
    expect(srv.seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /v2/templates/tpl%2F1%20x",
      "GET /v2/templates",
      "PATCH /v2/templates/tpl-1",
      "DELETE /v2/templates/tpl-1",
    ]);
    expect(body(srv.seen[2])).toEqual({ name: "renamed", mounts: {} });
  });

  test("params outside the contract fail before anything is sent, naming the field", async () => {
    const { srv, cp } = await setup(() => ({ status: 201, body: wireTemplate() }));
    const cases: [unknown, string][] = [
      [{ name: "t" }, "image is required"],
      [{ name: "t", image: "i", mounts: { network: [{ volumeId: "v", path: "/d" }] } }, "mounts.network is not an allowed property"],
      [{ name: "t", image: "i", mounts: { persistent: { size: 5, path: "/w" } } }, "mounts.persistent.size must be >= 10"],
      [{ name: "t", image: "i", category: "TPU" }, "category must be one of"],
      [{ name: "t", image: "i", gpu: { id: "x" } }, "gpu is not an allowed property"],
    ];
    for (const [params, message] of cases) {
      const err = await cp.templates.create(params as never).catch((e) => e);
      expect(err).toBeInstanceOf(RequestValidationError);
      expect(err.message).toContain(message);
    }
    const err = await cp.templates.update("tpl-1", { name: "" }).catch((e) => e);
    expect(err.message).toContain("name must be at least 1 character(s) long");
    expect(srv.seen).toHaveLength(0);
  });

  test("a create that failed ambiguously finds the template by name, image and kind instead of making two", async () => {
    const { srv, cp } = await setup((r) =>
      r.method === "POST"
        ? { status: 503, body: { title: "Service Unavailable", status: 503, detail: "down" } }
        : { status: 200, body: { templates: [wireTemplate({ id: "pod-kind", serverless: false }), wireTemplate({ id: "tpl-9" })] } },
    );
    await expect(cp.templates.create({ name: "worker", image: "img:1", serverless: true })).resolves.toMatchObject({ id: "tpl-9" });
    expect(srv.count("POST", "/v2/templates")).toBe(1);
  });

  test("deleting a template in use is a ConflictError naming the user; a create's 422 names the field", async () => {
    const { cp } = await setup((r) =>
      r.method === "DELETE"
        ? { status: 409, body: { title: "Conflict", status: 409, detail: "template tpl-1 is used by endpoint ep-1" } }
        : { status: 422, body: { title: "Unprocessable Entity", status: 422, detail: "x", errors: ["$: missing property 'image'"] } },
    );
    const del = await cp.templates.delete("tpl-1").catch((e) => e);
    expect(del).toBeInstanceOf(ConflictError);
    expect(del.message).toContain("used by endpoint ep-1");
    const create = await cp.templates.create({ name: "t", image: "i" }).catch((e) => e);
    expect(create).toBeInstanceOf(UnprocessableEntityError);
    expect(create.message).toContain("image is required");
  });
});
