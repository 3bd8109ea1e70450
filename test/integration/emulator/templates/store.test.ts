// Templates (the contract's Template operations) and the rules that tie templates and registry credentials to pods,
// volumes and serverless endpoints, over real HTTP. Registry credentials themselves: registries/store.test.ts.
import type { Emulator } from "../../../../src/emulator";
import { client, FULL, READ_ONLY, RTX4090, start } from "../../../helpers/emulator-rest";

let emu: Emulator;
const api = client(() => emu);

beforeAll(async () => {
  emu = await start();
});

afterAll(async () => {
  await emu?.close();
});

async function gql(query: string, target = emu): Promise<any> {
  const res = await fetch(`${target.url}/graphql?api_key=${FULL}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query }),
  });
  return res.json();
}

const saveEndpoint = (fields: string) =>
  gql(`mutation { saveEndpoint(input: { name: "ep", gpuIds: "ADA_24", ${fields} }) { id templateId networkVolumeId } }`);

describe("templates", () => {
  test("POST -> 201 with the contract's defaults; GET one, GET the list", async () => {
    const r = await api.post("/v2/templates", { name: "pt", image: "torch:2" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String),
      name: "pt",
      image: "torch:2",
      args: "",
      disk: 20,
      mounts: {},
      ports: [],
      env: {},
      registry: null,
      serverless: false,
      public: false,
      category: "NVIDIA",
    });
    expect((await api.get(`/v2/templates/${r.body.id}`)).body).toEqual(r.body);
    expect((await api.get("/v2/templates")).body.templates).toContainEqual(r.body);
  });

  test("the body is checked against CreateTemplateRequest -> 422 naming each field", async () => {
    const r = await api.post("/v2/templates", {
      image: 5,
      category: "TPU",
      mounts: { network: [{ volumeId: "v", path: "/d" }] },
      bogus: 1,
    });
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual([
      "$: additional properties 'bogus' not allowed",
      "$: missing property 'name'",
      "$.image: expected string, but got integer",
      "$.category: value must be one of 'CPU', 'NVIDIA', 'AMD', but got 'TPU'",
      "$.mounts: additional properties 'network' not allowed",
    ]);
  });

  test("PATCH changes what it names; {} mounts keep the mount; unknown id -> 404; DELETE -> 204", async () => {
    const t = (
      await api.post("/v2/templates", { name: "a", image: "i:1", mounts: { persistent: { size: 20, path: "/w" } } })
    ).body;
    const r = await api.patch(`/v2/templates/${t.id}`, { name: "b", env: { K: "v" }, mounts: {}, category: "AMD" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...t, name: "b", env: { K: "v" }, category: "AMD" });
    expect((await api.patch("/v2/templates/tpl-none", { name: "x" })).status).toBe(404);
    expect((await api.del(`/v2/templates/${t.id}`)).status).toBe(204);
    expect((await api.get(`/v2/templates/${t.id}`)).status).toBe(404);
    expect((await api.del(`/v2/templates/${t.id}`)).status).toBe(404);
  });

  test("a read-only key reads templates but cannot create one -> 403", async () => {
    expect((await api.get("/v2/templates", { key: READ_ONLY })).status).toBe(200);
    expect((await api.post("/v2/templates", { name: "a", image: "i" }, { key: READ_ONLY })).status).toBe(403);
  });
});

describe("cross-resource rules", () => {
  test("saveEndpoint: templateId must be one of the owner's serverless templates -> BAD_USER_INPUT", async () => {
    const podTpl = (await api.post("/v2/templates", { name: "pod", image: "i" })).body;
    for (const id of ["tpl-none", podTpl.id]) {
      const r = await saveEndpoint(`templateId: "${id}"`);
      expect(r.data.saveEndpoint).toBeNull();
      expect(r.errors[0].extensions.code).toBe("BAD_USER_INPUT");
      expect(r.errors[0].message).toContain(`input.templateId "${id}" is not one of your serverless templates`);
    }
    const tpl = (await api.post("/v2/templates", { name: "sl", image: "i", serverless: true })).body;
    const ok = await saveEndpoint(`templateId: "${tpl.id}"`);
    expect(ok.data.saveEndpoint.templateId).toBe(tpl.id);
  });

  test("saveEndpoint: networkVolumeId must be one of the owner's volumes -> BAD_USER_INPUT", async () => {
    const tpl = (await api.post("/v2/templates", { name: "sl", image: "i", serverless: true })).body;
    const bad = await saveEndpoint(`templateId: "${tpl.id}", networkVolumeId: "nv-none"`);
    expect(bad.errors[0].extensions.code).toBe("BAD_USER_INPUT");
    expect(bad.errors[0].message).toContain('input.networkVolumeId "nv-none" is not one of your network volumes');
    const vol = await api.createVolume();
    const ok = await saveEndpoint(`templateId: "${tpl.id}", networkVolumeId: "${vol.id}"`);
    expect(ok.data.saveEndpoint.networkVolumeId).toBe(vol.id);
  });

  test("a template, volume or registry in use cannot be deleted -> 409 naming the user; after it goes -> 204", async () => {
    const tpl = (await api.post("/v2/templates", { name: "sl", image: "i", serverless: true })).body;
    const vol = await api.createVolume();
    const ep = (await saveEndpoint(`templateId: "${tpl.id}", networkVolumeId: "${vol.id}", workersMax: 0`)).data
      .saveEndpoint;
    const t409 = await api.del(`/v2/templates/${tpl.id}`);
    expect(t409.status).toBe(409);
    expect(t409.body.detail).toBe(`template '${tpl.id}' is in use by serverless endpoint '${ep.id}'; remove that first`);
    expect((await api.del(`/v2/network-volumes/${vol.id}`)).status).toBe(409);
    const unserverless = await api.patch(`/v2/templates/${tpl.id}`, { serverless: false });
    expect(unserverless.status).toBe(400);
    expect((await gql(`mutation { deleteEndpoint(id: "${ep.id}") }`)).errors).toBeUndefined();
    expect((await api.del(`/v2/templates/${tpl.id}`)).status).toBe(204);
    expect((await api.del(`/v2/network-volumes/${vol.id}`)).status).toBe(204);

    const reg = (await api.post("/v2/registries", { name: "r", username: "u", password: "p" })).body;
    const byTpl = (await api.post("/v2/templates", { name: "t", image: "i", registry: reg.id })).body;
    expect((await api.del(`/v2/registries/${reg.id}`)).body.detail).toBe(
      `registry '${reg.id}' is in use by template '${byTpl.id}'; remove that first`,
    );
    await api.del(`/v2/templates/${byTpl.id}`);
    const pod = await api.createPod({ gpu: { id: RTX4090 }, registry: reg.id });
    const r409 = await api.del(`/v2/registries/${reg.id}`);
    expect(r409.status).toBe(409);
    expect(r409.body.detail).toContain(`pod '${pod.id}'`);
    await api.del(`/v2/pods/${pod.id}`);
    expect((await api.del(`/v2/registries/${reg.id}`)).status).toBe(204);
  });

  test("a template's registry must exist -> 400", async () => {
    const r = await api.post("/v2/templates", { name: "t", image: "i", registry: "reg-none" });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/registry: registry 'reg-none' does not exist/);
  });
});
