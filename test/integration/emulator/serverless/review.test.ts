// Serverless defects an outside review found (issue 14): each test failed before its fix.
import { type Emulator, startEmulator } from "../../../../src/emulator";
import { createServerlessTemplate } from "../../../helpers/emulator-fixtures";

const FULL = "cp_test_full_review_0123456789";
const READ_ONLY = "cp_test_read_review_0123456789";
const WRITE_ONLY = "cp_test_write_review_0123456789";
const QUOTAS = { minute: 100000, hour: 1000000, day: 10000000 };

let emu: Emulator;
let TPL: string;

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    keys: [
      { key: FULL, scopes: ["read", "write"] },
      { key: READ_ONLY, scopes: ["read"] },
      { key: WRITE_ONLY, scopes: ["write"] },
    ],
    quotas: QUOTAS,
    timings: { provisioningMs: 10, startingMs: 30, drainMs: 30 },
    // 100 times faster: a 1000 ms wait lasts 10 real ms.
    timeScale: 100,
  });
  TPL = await createServerlessTemplate(emu.url, FULL);
});

afterAll(async () => {
  await emu?.close();
});

afterEach(() => emu.setFaults({}));

async function gql(query: string, key = FULL) {
  const res = await fetch(`${emu.url}/graphql?api_key=${encodeURIComponent(key)}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function runsync(body: unknown, { key = FULL, query = "", model = "sdxl-turbo" } = {}) {
  const res = await fetch(`${emu.url}/v2/${model}/runsync${query}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const save = (fields: string) =>
  gql(`mutation { saveEndpoint(input: { ${fields} }) { id type networkVolumeId } }`);

describe("issue 14 #12: the read scope holds on GraphQL and runsync as on REST", () => {
  test("a write-only key cannot read myself (FORBIDDEN) nor call a model (403); a read-only key cannot run a paid job", async () => {
    const q = await gql("{ myself { endpoints { id } } }", WRITE_ONLY);
    expect(q.status).toBe(200);
    expect(q.body.data).toEqual({ myself: null });
    expect(q.body.errors[0].extensions.code).toBe("FORBIDDEN");
    expect(q.body.errors[0].message).toMatch(/'read' scope/);

    const w = await runsync({ input: { prompt: "x" } }, { key: WRITE_ONLY });
    expect(w.status).toBe(403);
    expect(w.body.detail).toMatch(/'read' scope/);
    const r = await runsync({ input: { prompt: "x" } }, { key: READ_ONLY });
    expect(r.status).toBe(403);
    expect(r.body.detail).toMatch(/'write' scope/);
    expect((await runsync({ input: { prompt: "x" } })).status).toBe(200);
    // The write-only key still writes.
    const made = await gql(`mutation { saveEndpoint(input: { name: "wo", gpuIds: "ADA_24", templateId: "${TPL}", workersMax: 0 }) { id } }`, WRITE_ONLY);
    expect(made.body.errors).toBeUndefined();
  });
});

describe("issue 14 #15: an endpoint's type is fixed at creation, as the provider reads it", () => {
  test("saveEndpoint with id and another type -> BAD_USER_INPUT naming the rule; the same type passes", async () => {
    const ep = (await save(`name: "typed", gpuIds: "ADA_24", templateId: "${TPL}", type: "QB"`)).body.data.saveEndpoint;
    const changed = await save(`id: "${ep.id}", name: "typed", gpuIds: "ADA_24", templateId: "${TPL}", type: "LB"`);
    expect(changed.body.errors[0].extensions.code).toBe("BAD_USER_INPUT");
    expect(changed.body.errors[0].message).toMatch(/input\.type.*fixed at creation/);
    const same = await save(`id: "${ep.id}", name: "typed", gpuIds: "ADA_24", templateId: "${TPL}", type: "QB"`);
    expect(same.body.data.saveEndpoint.type).toBe("QB");
  });
});

describe("issue 14 #16: an endpoint's networkVolumeId names a volume of the owner, on modify too", () => {
  test("modify to an unknown volume -> BAD_USER_INPUT, the endpoint keeps its volume", async () => {
    const vol = (await (
      await fetch(`${emu.url}/v2/network-volumes`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${FULL}` },
        body: JSON.stringify({ name: "v", size: 10, dataCenter: "US-TX-3" }),
      })
    ).json()) as any;
    const ep = (await save(`name: "nv", gpuIds: "ADA_24", templateId: "${TPL}", networkVolumeId: "${vol.id}"`)).body.data
      .saveEndpoint;
    const bad = await save(`id: "${ep.id}", name: "nv", gpuIds: "ADA_24", templateId: "${TPL}", networkVolumeId: "nv-gone"`);
    expect(bad.body.errors[0].message).toContain('input.networkVolumeId "nv-gone" is not one of your network volumes');
    const eps = (await gql("{ myself { endpoints { id networkVolumeId } } }")).body.data.myself.endpoints;
    expect(eps.find((e: any) => e.id === ep.id).networkVolumeId).toBe(vol.id);
  });
});

describe("issue 14 #17 and the hosted model call: runsync", () => {
  test("inputs beyond prompt (seed, num_inference_steps, no width/height) are accepted; a missing prompt is 422", async () => {
    const r = await runsync({ input: { prompt: "a fox", seed: 42, num_inference_steps: 4, guidance_scale: 0.5 } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "COMPLETED", output: { image_url: expect.stringMatching(/\.png$/) } });
    const missing = await runsync({ input: { seed: 1 } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toContain("$.input: missing property 'prompt'");
  });

  test("wait out of 1000..300000 -> 400 naming it", async () => {
    for (const w of ["999", "300001", "abc", "1.5"]) {
      const r = await runsync({ input: { prompt: "x" } }, { query: `?wait=${w}` });
      expect(r.status).toBe(400);
      expect(r.body.detail).toMatch(/wait must be an integer from 1000 to 300000/);
    }
  });

  test("a job longer than wait answers IN_PROGRESS without output; a shorter one COMPLETED", async () => {
    emu.setFaults({ modelJobMs: 5000 });
    const slow = await runsync({ input: { prompt: "x" } }, { query: "?wait=1000" });
    expect(slow.status).toBe(200);
    expect(slow.body).toEqual({ id: expect.any(String), status: "IN_PROGRESS" });
    const enough = await runsync({ input: { prompt: "x" } }, { query: "?wait=6000" });
    expect(enough.body.status).toBe("COMPLETED");
    // The default wait (90000 ms) outlasts a 5 s job.
    expect((await runsync({ input: { prompt: "x" } })).body.status).toBe("COMPLETED");
  });

  test("a job whose prompt matches failingPrompts answers FAILED with an error and no output", async () => {
    emu.setFaults({ failingPrompts: ["^boom"] });
    const r = await runsync({ input: { prompt: "boom now" } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: expect.any(String),
      status: "FAILED",
      error: expect.stringMatching(/\S/),
      delayTime: expect.any(Number),
      executionTime: expect.any(Number),
    });
    expect((await runsync({ input: { prompt: "fine" } })).body.status).toBe("COMPLETED");
  });
});
