/**
 * runSyncSmokeTest's provider (smoke-provider.ts) against the emulator over HTTP: its create and
 * update each send one job, saying when and why; its diff, read and delete none; its check refuses
 * what cannot be sent before any request.
 */
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
