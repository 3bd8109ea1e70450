// Requests shaped as the platform's own clients send them, against the emulator over real HTTP:
// the key as a bearer header on /graphql, a create with `gpuCount`, `networkVolumeId: ""` and
// `locations: ""`, a save through variables carrying `gpuCount` and `executionTimeoutMs`, and the
// official JavaScript SDK (runpod-sdk, pinned in devDependencies) following a hosted-model job
// through status-sync past its wait.
//
// The GraphQL documents below are fixtures copied from the clients' sources (named at each);
// only the request around them (URL, headers, body) is written here, after what those clients do.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { type Emulator, startEmulator } from "../../../../src/emulator";
import { createServerlessTemplate } from "../../../helpers/emulator-fixtures";

const KEY = "cp_test_clients_0123456789";
const QUOTAS = { minute: 100000, hour: 1000000, day: 10000000 };
const REPO = join(__dirname, "../../../..");

let emu: Emulator;
let TPL: string;

beforeAll(async () => {
  // 100 emulated ms per real ms: a 30 s job lasts 300 real ms, a 1000 ms wait 10.
  emu = await startEmulator({ port: 0, keys: [{ key: KEY, scopes: ["read", "write"] }], quotas: QUOTAS, timeScale: 100, recordExchanges: 1000 });
  TPL = await createServerlessTemplate(emu.url, KEY);
});

afterAll(async () => {
  await emu?.close();
});

/** POST /graphql as runpod-python (runpod/api/graphql.py) and runpodctl (api/query.go) send it: bearer header, JSON body. */
async function graphql(body: { query: string; variables?: Record<string, unknown> }) {
  const res = await fetch(`${emu.url}/graphql`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "User-Agent": "platform-client-fixture", Authorization: `Bearer ${KEY}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/**
 * runpod-python, runpod/api/mutations/endpoints.py `generate_endpoint_mutation` (commit 07fc6e2),
 * as it renders for name "py-endpoint", gpu_count=1 and no network volume or locations: it always
 * sends `networkVolumeId: ""` and `locations: ""`. Its selection also names `allowedCudaVersions`,
 * a field the emulator does not serve (a document naming it fails validation, tested below), so
 * that one selection line is left out here.
 */
const PYTHON_CREATE = (templateId: string, select = "") => `
    mutation {
        saveEndpoint(
            input: {
                name: "py-endpoint", templateId: "${templateId}", gpuIds: "AMPERE_16", networkVolumeId: "", locations: "", idleTimeout: 5, scalerType: "QUEUE_DELAY", scalerValue: 4, workersMin: 0, workersMax: 3, gpuCount: 1
            }
        ) {
            id
            name
            templateId
            gpuIds
            networkVolumeId
            locations
            idleTimeout
            scalerType
            scalerValue
            workersMin
            workersMax
${select}            gpuCount
            flashBootType
        }
    }
    `;

/**
 * runpodctl, internal/api/endpoints.go `UpdateEndpointModels` (commit 2e2df89): a save through
 * variables that round-trips the endpoint's whole configuration, `gpuCount` and
 * `executionTimeoutMs` included. The fields the emulator does not serve (`instanceIds`,
 * `networkVolumeIds`, `minCudaVersion`, `modelReferences`) are left out of the selection and of
 * the variables.
 */
const RUNPODCTL_SAVE = `
		mutation SaveEndpoint($input: EndpointInput!) {
			saveEndpoint(input: $input) {
				id
				name
				templateId
				gpuIds
				gpuCount
				workersMin
				workersMax
				locations
				networkVolumeId
				idleTimeout
				scalerType
				scalerValue
				executionTimeoutMs
				flashBootType
			}
		}
	`;

/** runpodctl, api/endpoint.go `CreateEndpoint` (commit 2e2df89), verbatim: it selects `userId`. */
const RUNPODCTL_CREATE = `
		mutation saveEndpoint($input: EndpointInput!) {
			saveEndpoint(input: $input) {
			  gpuIds
			  id
			  idleTimeout
			  locations
			  name
			  networkVolumeId
			  scalerType
			  scalerValue
			  templateId
			  userId
			  workersMax
			  workersMin
			}
		  }
		`;

describe("GraphQL documents of the platform's clients", () => {
  test("runpod-python's create (bearer key, gpuCount 1, networkVolumeId and locations empty): made, and the empty ones read null", async () => {
    const r = await graphql({ query: PYTHON_CREATE(TPL) });
    expect(r.status).toBe(200);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.saveEndpoint).toEqual({
      id: expect.stringMatching(/^[0-9a-z]{14}$/),
      name: "py-endpoint",
      templateId: TPL,
      gpuIds: "AMPERE_16",
      networkVolumeId: null,
      locations: null,
      idleTimeout: 5,
      scalerType: "QUEUE_DELAY",
      scalerValue: 4,
      workersMin: 0,
      workersMax: 3,
      gpuCount: 1,
      flashBootType: "OFF",
    });
  });

  test("runpodctl's full save through variables: gpuCount and executionTimeoutMs change, the rest round-trips as sent", async () => {
    const made = (await graphql({ query: PYTHON_CREATE(TPL) })).body.data.saveEndpoint;
    const input = {
      id: made.id,
      name: made.name,
      templateId: made.templateId,
      gpuIds: "ADA_24,AMPERE_24",
      gpuCount: 2,
      workersMin: 0,
      workersMax: 2,
      locations: "",
      networkVolumeId: "",
      idleTimeout: 30,
      scalerType: "REQUEST_COUNT",
      scalerValue: 2,
      executionTimeoutMs: 600000,
      // An enum in variables is a JSON string (the literal form, FLASHBOOT, is for the document).
      flashBootType: "FLASHBOOT",
    };
    const r = await graphql({ query: RUNPODCTL_SAVE, variables: { input } });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.saveEndpoint).toEqual({ ...input, locations: null, networkVolumeId: null });
    const listed = await graphql({ query: "{ myself { endpoints { id gpuCount executionTimeoutMs } } }" });
    expect(listed.body.data.myself.endpoints).toContainEqual({ id: made.id, gpuCount: 2, executionTimeoutMs: 600000 });
  });

  test("a gpuCount the platform refuses, through variables: BAD_USER_INPUT naming the field, nothing changed", async () => {
    const made = (await graphql({ query: PYTHON_CREATE(TPL) })).body.data.saveEndpoint;
    const r = await graphql({ query: RUNPODCTL_SAVE, variables: { input: { id: made.id, name: made.name, templateId: TPL, gpuIds: "AMPERE_16", gpuCount: 0 } } });
    expect(r.body.data).toEqual({ saveEndpoint: null });
    expect(r.body.errors[0]).toMatchObject({ path: ["saveEndpoint"], extensions: { code: "BAD_USER_INPUT" } });
    expect(r.body.errors[0].message).toContain("input.gpuCount must be >= 1, got 0");
    const listed = await graphql({ query: "{ myself { endpoints { id gpuCount } } }" });
    expect(listed.body.data.myself.endpoints).toContainEqual({ id: made.id, gpuCount: 1 });
  });

  test.each([
    ["runpod-python's create as it stands (selects allowedCudaVersions)", () => PYTHON_CREATE(TPL, "            allowedCudaVersions\n"), "allowedCudaVersions"],
    ["runpodctl's create as it stands (selects userId)", () => RUNPODCTL_CREATE, "userId"],
  ])("%s: fields the emulator does not serve fail the document, naming them", async (_what, query, field) => {
    const r = await graphql({ query: query(), variables: { input: { name: "x", templateId: TPL, gpuIds: "AMPERE_16" } } });
    expect(r.status).toBe(200);
    expect(r.body.data).toBeNull();
    expect(r.body.errors[0].extensions.code).toBe("GRAPHQL_VALIDATION_FAILED");
    expect(r.body.errors[0].message).toContain(field);
  });
});

/** Runs `script` (an ES module) with Node from the repository root, so `runpod-sdk` resolves; its last stdout line is JSON. */
function runModule(script: string, env: Record<string, string>): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["--input-type=module", "-e", script], { cwd: REPO, env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${err.message}\n${stdout}\n${stderr}`));
      const last = stdout.trim().split("\n").at(-1)!;
      resolve(JSON.parse(last));
    });
  });
}

describe("the official JavaScript SDK (runpod-sdk 1.1.2) against the emulator's hosted models", () => {
  const SDK = `
    import runpodSdk from "runpod-sdk";
    const sdk = runpodSdk(process.env.KEY, { baseUrl: process.env.BASE + "/v2" });
    const endpoint = sdk.endpoint("sdxl-turbo");
  `;

  test("runSync of a job that outlasts its wait: the SDK follows it through status-sync to COMPLETED; one submission", async () => {
    emu.setFaults({ modelJobMs: 30000 });
    try {
      const before = emu.counts();
      // timeout 5000 ms: the SDK asks runsync?wait=5000 (50 real ms here, short of the job), then status-sync until done.
      const result = await runModule(`${SDK}
        const r = await endpoint.runSync({ input: { prompt: "a lighthouse at dusk" } }, 5000);
        console.log(JSON.stringify(r));`, { KEY, BASE: emu.url });
      expect(result).toMatchObject({
        status: "COMPLETED",
        completed: true,
        succeeded: true,
        output: { image_url: expect.stringMatching(/\/images\/[0-9a-f]{32}-64x64\.png$/) },
        delayTime: 0,
        executionTime: 30000,
      });
      const after = emu.counts();
      expect((after.runSync ?? 0) - (before.runSync ?? 0)).toBe(1);
      expect((after.statusSync ?? 0) - (before.statusSync ?? 0)).toBeGreaterThanOrEqual(1);
      // Its follow-ups named the same job, with a wait, past the first one.
      const follows = emu.exchanges().filter((x) => x.path === `/v2/sdxl-turbo/status-sync/${result.id}`);
      expect(follows.length).toBeGreaterThanOrEqual(1);
      for (const x of follows) expect(x.query).toMatch(/^\?wait=\d+$/);
    } finally {
      emu.setFaults({});
    }
  });

  test("run, then status and statusSync: IN_QUEUE at once, then the finished job", async () => {
    emu.setFaults({ modelJobMs: 30000 });
    try {
      const result = await runModule(`${SDK}
        const job = await endpoint.run({ input: { prompt: "a lighthouse" } });
        const now = await endpoint.status(job.id);
        const done = await endpoint.statusSync(job.id, 90000);
        console.log(JSON.stringify({ job, now, done }));`, { KEY, BASE: emu.url });
      expect(result.job).toEqual({ id: expect.stringMatching(/^async-/), status: "IN_QUEUE" });
      expect(result.now).toMatchObject({ id: result.job.id, status: "IN_PROGRESS", started: true, completed: false });
      expect(result.done).toMatchObject({ id: result.job.id, status: "COMPLETED", executionTime: 30000 });
    } finally {
      emu.setFaults({});
    }
  });
});
