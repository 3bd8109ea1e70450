/**
 * runSyncSmokeTest's provider (smoke-provider.ts) against the emulator over HTTP: its create and
 * update each send one job, saying when and why; its diff, read and delete none; its check refuses
 * what cannot be sent before any request.
 */
import { platform, setPlatformSettings } from "../../../../src/resources/engine/settings";
import { SmokeTestProvider } from "../../../../src/resources/serverless-endpoint/smoke-provider";
import { settleSmokeTest as settle, SMOKE_INPUT, smokeEmulatorPerFile, smokeProvider } from "../../../helpers/smoke";

const on = smokeEmulatorPerFile();
const input = SMOKE_INPUT;

test("up calls the model once and returns the image URL", async () => {
  const before = on.emu.counts().runSync ?? 0;
  const result = await settle(() => on.client, { endpointId: "sdxl-turbo", input });
  const url = expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//);
  // A hosted model lists no workers: which release served it is not known.
  expect(result).toMatchObject({ id: expect.any(String), status: "COMPLETED", output: { image_url: url }, imageUrl: url, release: null });
  expect(on.emu.counts().runSync).toBe(before + 1);
  // The URL points at a real image.
  const image = await fetch((result as any).imageUrl);
  expect(image.status).toBe(200);
});

test("an unchanged subject sends nothing and keeps the answer; a changed input sends one job, saying when and why", async () => {
  const lines: string[] = [];
  const p = smokeProvider(() => on.client, lines);
  const made = await p.create({ endpointId: "sdxl-turbo", input, __logicalName: "smoke" });
  const before = on.emu.counts().runSync ?? 0;
  expect(made.outs).toMatchObject({ reason: "first run", ranAt: "2026-01-02T03:04:05.000Z", status: "COMPLETED" });
  // A longer timeout is how it runs, not what it tests.
  expect(await p.diff(made.id, made.outs, { endpointId: "sdxl-turbo", input, timeoutMs: 5000, __logicalName: "smoke" })).toEqual({ changes: false, replaces: [] });
  expect(await p.read(made.id, made.outs)).toEqual({ id: made.id, props: made.outs });
  await p.delete();
  expect(on.emu.counts().runSync ?? 0).toBe(before);
  const changed = { endpointId: "sdxl-turbo", input: { ...input, prompt: "another" }, triggers: ["weekly"], __logicalName: "smoke" };
  expect(await p.diff(made.id, made.outs, changed)).toEqual({ changes: true, replaces: [] });
  const updated = await p.update(made.id, made.outs, changed);
  expect(on.emu.counts().runSync).toBe(before + 1);
  expect(updated.outs).toMatchObject({ reason: "the job's input changed; a trigger changed", status: "COMPLETED" });
  expect(updated.outs!.jobId).not.toBe(made.outs.jobId);
  expect(lines).toEqual([
    expect.stringMatching(/^smoke test "smoke": ran job \S+ on sdxl-turbo at 2026-01-02T03:04:05.000Z \(first run\): COMPLETED$/),
    `smoke test "smoke": no job (nothing it tests changed); keeps the answer of job ${made.outs.jobId}, run at 2026-01-02T03:04:05.000Z`,
    'smoke test "smoke": runs one paid job on sdxl-turbo (the job\'s input changed; a trigger changed)',
    expect.stringMatching(/^smoke test "smoke": ran job \S+ on sdxl-turbo at .*\(the job's input changed; a trigger changed\): COMPLETED$/),
  ]);
});

test("check refuses what cannot be sent, naming the field, before any request", async () => {
  const p = smokeProvider(() => on.client);
  const checked = await p.check({}, { endpointId: "", input: "hi", timeoutMs: 10 });
  expect(checked.failures).toEqual([
    { property: "endpointId", reason: expect.stringContaining("non-empty string") },
    { property: "input", reason: expect.stringContaining("must be an object") },
    { property: "timeoutMs", reason: expect.stringContaining("at least 1000") },
  ]);
});

describe("check: each failure's reason, whole, names the field and the rule", () => {
  const ENDPOINT = { property: "endpointId", reason: "endpointId must be a non-empty string (an endpoint's id or a hosted model's)" };
  const INPUT = { property: "input", reason: "input must be an object (the job's `input`)" };
  const TIMEOUT = { property: "timeoutMs", reason: "timeoutMs must be a number of ms, at least 1000" };
  const ok = { endpointId: "sdxl-turbo", input: {} };
  test.each<[string, Record<string, unknown>, object[]]>([
    ["valid", ok, []],
    ["endpointId not a string", { ...ok, endpointId: 5 }, [ENDPOINT]],
    ["endpointId empty", { ...ok, endpointId: "" }, [ENDPOINT]],
    ["endpointId missing", { input: {} }, [ENDPOINT]],
    ["input missing", { endpointId: "sdxl-turbo" }, [INPUT]],
    ["input null", { ...ok, input: null }, [INPUT]],
    ["input a list", { ...ok, input: [1] }, [INPUT]],
    ["input a string", { ...ok, input: "hi" }, [INPUT]],
    ["timeoutMs null (the default)", { ...ok, timeoutMs: null }, []],
    ["timeoutMs 1000, the least", { ...ok, timeoutMs: 1000 }, []],
    ["timeoutMs 999", { ...ok, timeoutMs: 999 }, [TIMEOUT]],
    ["timeoutMs not a number", { ...ok, timeoutMs: "5000" }, [TIMEOUT]],
  ])("%s", async (_label, news, failures) => {
    const p = smokeProvider(() => on.client);
    // No request either way: the inputs come back as given.
    expect(await p.check({}, news)).toEqual({ inputs: news, failures });
  });
});

test("create: the id names the endpoint; the outputs are the inputs, the answer, the job, when and why it ran", async () => {
  const lines: string[] = [];
  const p = smokeProvider(() => on.client, lines);
  const inputs = { endpointId: "sdxl-turbo", input, timeoutMs: 60_000, triggers: ["a"], __logicalName: "smoke" };
  const made = await p.create(inputs);
  const url = expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//);
  expect(made).toEqual({
    id: "smoke-sdxl-turbo",
    outs: {
      ...inputs,
      status: "COMPLETED",
      output: { image_url: url },
      imageUrl: url,
      workerId: null,
      release: null,
      jobId: expect.any(String),
      ranAt: "2026-01-02T03:04:05.000Z",
      reason: "first run",
    },
  });
  expect(lines).toEqual([`smoke test "smoke": ran job ${made.outs.jobId} on sdxl-turbo at 2026-01-02T03:04:05.000Z (first run): COMPLETED`]);
});

test("without a logical name the lines name no resource; a read without props keeps nothing", async () => {
  const lines: string[] = [];
  const p = smokeProvider(() => on.client, lines);
  const made = await p.create({ endpointId: "sdxl-turbo", input });
  await p.diff(made.id, made.outs, { endpointId: "sdxl-turbo", input });
  await p.diff(made.id, made.outs, { endpointId: "sdxl-turbo", input: {} });
  expect(lines).toEqual([
    `smoke test : ran job ${made.outs.jobId} on sdxl-turbo at 2026-01-02T03:04:05.000Z (first run): COMPLETED`,
    `smoke test : no job (nothing it tests changed); keeps the answer of job ${made.outs.jobId}, run at 2026-01-02T03:04:05.000Z`,
    "smoke test : runs one paid job on sdxl-turbo (the job's input changed)",
  ]);
  expect(await p.read("smoke-sdxl-turbo")).toEqual({ id: "smoke-sdxl-turbo", props: {} });
});

test("with no options it sends through the stack's client, at the system clock's time, and says so in Pulumi's log", async () => {
  setPlatformSettings({ apiKey: on.emu.apiKey, apiUrl: on.emu.url, serverlessUrl: on.emu.url });
  const log = jest.spyOn(console, "log").mockImplementation(() => undefined);
  try {
    const before = on.emu.counts().runSync ?? 0;
    const p = new SmokeTestProvider();
    const t0 = Date.now();
    const made = await p.create({ endpointId: "sdxl-turbo", input, __logicalName: "smoke" });
    expect(on.emu.counts().runSync).toBe(before + 1);
    const ranAt = Date.parse(made.outs.ranAt);
    expect(ranAt).toBeGreaterThanOrEqual(t0 - 1000);
    expect(ranAt).toBeLessThanOrEqual(Date.now());
    // Outside a Pulumi program, Pulumi's log writes to the console.
    expect(log.mock.calls.flat().join("\n")).toContain(`smoke test "smoke": ran job ${made.outs.jobId} on sdxl-turbo`);
  } finally {
    log.mockRestore();
    await platform().close();
    setPlatformSettings({});
  }
});
