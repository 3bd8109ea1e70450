/**
 * The ServerlessEndpoint provider's methods, called directly, against the emulator over real
 * HTTP (GraphQL). Emulator timings are tens of milliseconds, so waits are real but short.
 */
import { ComputePlatform, ConflictError } from "../../../../src/client";
import { type Clock, systemClock } from "../../../../src/client/core/clock";
import { type Emulator, startEmulator } from "../../../../src/emulator";
import { EndpointNotReadyError, ServerlessEndpointProvider } from "../../../../src/resources/serverless-endpoint/provider";
import { type ServerlessEndpointOutputs } from "../../../../src/resources/serverless-endpoint/schema";
import { createServerlessTemplate } from "../../../helpers/emulator-fixtures";

const STARTING_MS = 60;
const DRAIN_MS = 120;
const QUOTAS = { minute: 100_000, hour: 1_000_000, day: 10_000_000 };

let emu: Emulator;
let client: ComputePlatform;
/** The serverless template the endpoints name (the platform checks that it exists). */
let TPL: string;



function provider(over: Partial<ConstructorParameters<typeof ServerlessEndpointProvider>[0]> = {}) {
  return new ServerlessEndpointProvider({ client: () => client, pollIntervalMs: 5, maxPollIntervalMs: 20, ...over });
}

/** Checked inputs, as the engine hands them to create/update. */
async function inputs(p: ServerlessEndpointProvider, news: Record<string, unknown>, olds?: Record<string, unknown>) {
  const checked = await p.check(olds ?? {}, { gpuIds: "AMPERE_24", templateId: TPL, ...news });
  expect(checked.failures ?? []).toEqual([]);
  return checked.inputs!;
}

function live(id: string, on: Emulator = emu): any {
  return on.state().endpoints.find((e: any) => e.id === id);
}

/** Request-log entries of one endpoint test, from `from` on. */
function opsSince(from: number): { op: string; at: number }[] {
  return emu
    .requestLog()
    .slice(from)
    .filter((e) => e.path === "/graphql")
    .map((e) => ({ op: e.op, at: Date.parse(e.at) }));
}

// Every update (and the scale-to-zero before each delete) runs against both readings of a
// GraphQL save: the emulator keeping the fields a save leaves out, and resetting them to their
// defaults as a client of the live platform reports it doing. The resource sends every field, so
// both give the same endpoint.
describe.each([
  ["a platform that keeps left-out fields on a save", false],
  ["a platform that resets left-out fields on a save (graphqlSaveResets)", true],
])("%s", (_reading, graphqlSaveResets) => {
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, quotas: QUOTAS, graphqlSaveResets, recordExchanges: 10_000, timings: { provisioningMs: 10, startingMs: STARTING_MS, drainMs: DRAIN_MS } });
    TPL = await createServerlessTemplate(emu.url, emu.apiKey);
    client = new ComputePlatform({ apiKey: emu.apiKey, apiUrl: emu.url, serverlessUrl: emu.url, pacing: false, maxRetries: 1 });
  });

  afterAll(async () => {
    await client?.close();
    await emu?.close();
  });

  test("lifecycle: create waits for workers, updates in place, type change plans replace, delete scales to zero", async () => {
    const p = provider();
    const created = await p.create(await inputs(p, { name: "life", workersMin: 2, workersMax: 3, idleTimeout: 7 }));
    const id = created.id;
    expect(created.outs).toMatchObject({ name: "life", type: "QB", workersMin: 2, workersMax: 3, idleTimeout: 7 });
    // The wait returned only once both workers run.
    expect(created.outs!.pods).toEqual([{ desiredStatus: "RUNNING" }, { desiredStatus: "RUNNING" }]);
    // Platform-filled values are in the outputs, never undefined.
    expect(created.outs!.scalerType).toBe("QUEUE_DELAY");
    expect(Object.values(created.outs!).includes(undefined as any)).toBe(false);

    // Same program again: no diff, even for what the platform filled in.
    const olds = created.outs as ServerlessEndpointOutputs;
    const same = await inputs(p, { name: "life", workersMin: 2, workersMax: 3, idleTimeout: 7 });
    expect(await p.diff(id, olds, same)).toMatchObject({ changes: false, replaces: [] });

    // In place: rename, fewer workers, another idle timeout.
    const news = await inputs(p, { name: "life-2", workersMin: 1, workersMax: 3, idleTimeout: 30, flashBootType: "FLASHBOOT" });
    expect(await p.diff(id, olds, news)).toMatchObject({ changes: true, replaces: [] });
    const saves = emu.counts().saveEndpoint ?? 0;
    const updated = await p.update(id, olds, news);
    expect(emu.counts().saveEndpoint).toBe(saves + 1);
    expect(updated.outs).toMatchObject({ name: "life-2", workersMin: 1, idleTimeout: 30, flashBootType: "FLASHBOOT", type: "QB" });
    expect(live(id)).toMatchObject({ id, name: "life-2", workersMin: 1, idleTimeout: 30, flashBootType: "FLASHBOOT" });

    // Only a wait setting changed: nothing is sent to the platform.
    const waitOnly = await inputs(p, { name: "life-2", workersMin: 1, workersMax: 3, idleTimeout: 30, flashBootType: "FLASHBOOT", readyTimeoutSeconds: 60 });
    expect(await p.diff(id, updated.outs!, waitOnly)).toMatchObject({ changes: true, replaces: [] });
    const afterWaitOnly = await p.update(id, updated.outs!, waitOnly);
    expect(emu.counts().saveEndpoint).toBe(saves + 1);
    expect(afterWaitOnly.outs!.readyTimeoutSeconds).toBe(60);

    // type is fixed at creation.
    const lb = await inputs(p, { name: "life-2", type: "LB", workersMin: 1, workersMax: 3 });
    expect(await p.diff(id, afterWaitOnly.outs!, lb)).toEqual({ changes: true, replaces: ["type"], deleteBeforeReplace: false });

    // What the engine does for that replace: create the new one, then delete the old one.
    const replacement = await p.create(lb);
    expect(replacement.id).not.toBe(id);
    expect(live(replacement.id)).toMatchObject({ type: "LB" });
    await p.delete(id, afterWaitOnly.outs!);
    expect(live(id)).toBeUndefined();
    expect(await p.read(id, afterWaitOnly.outs!)).toEqual({});

    await p.delete(replacement.id, replacement.outs!);
    expect(live(replacement.id)).toBeUndefined();
  });

  test("delete saves workersMin = workersMax = 0, then deletes: it does not wait for the workers to leave the list", async () => {
    const p = provider();
    const { id, outs } = await p.create(await inputs(p, { name: "drain-me", workersMin: 2, workersMax: 2 }));
    expect(live(id).pods.filter((w: any) => w.desiredStatus === "RUNNING")).toHaveLength(2);

    // What the platform held at the moment the provider sent deleteEndpoint.
    const seenAtDelete: any[] = [];
    const watching = {
      endpoints: Object.assign(Object.create(client.endpoints), {
        delete: (target: string, opts?: any) => {
          seenAtDelete.push(structuredClone(live(target)));
          return client.endpoints.delete(target, opts);
        },
      }),
    };
    const from = emu.requestLog().length;
    await provider({ client: () => watching as any }).delete(id, outs!);

    // One read, the scale-down, the delete: what the platform requires and no more.
    expect(opsSince(from).map((o) => o.op)).toEqual(["myself", "saveEndpoint", "deleteEndpoint"]);
    expect(seenAtDelete).toEqual([expect.objectContaining({ id, workersMin: 0, workersMax: 0 })]);
    expect(live(id)).toBeUndefined();
  });

  test("a platform that keeps listing EXITED workers does not hold destroy up", async () => {
    const p = provider();
    const { id, outs } = await p.create(await inputs(p, { name: "lingering", workersMin: 1, workersMax: 1 }));
    const lingering = (ep: any) => (ep ? { ...ep, pods: [...(ep.pods ?? []), { desiredStatus: "EXITED" }] } : ep);
    const sticky = {
      endpoints: Object.assign(Object.create(client.endpoints), {
        list: async (opts?: any) => (await client.endpoints.list(opts)).map(lingering),
        get: async (target: string, opts?: any) => lingering(await client.endpoints.get(target, opts)),
      }),
    };
    // What the delete waited, counted by its clock rather than timed: work on a busy machine is
    // not waiting, and waiting out the drain timeout would sleep 2,000 ms.
    let slept = 0;
    const counting: Clock = { now: systemClock.now, sleep: (ms, signal) => ((slept += ms), systemClock.sleep(ms, signal)) };
    await provider({ client: () => sticky as any, clock: counting }).delete(id, { ...outs!, drainTimeoutSeconds: 2 });
    expect(live(id)).toBeUndefined();
    expect(slept).toBeLessThan(2000);
  });

  test("a refused delete (workers raised again meanwhile) starts over from the scale-down", async () => {
    const p = provider();
    const { id, outs } = await p.create(await inputs(p, { name: "racer", workersMin: 1, workersMax: 1 }));
    let raced = false;
    const racing = {
      endpoints: Object.assign(Object.create(client.endpoints), {
        delete: async (target: string, opts?: any) => {
          if (!raced) {
            raced = true;
            // Someone else scales it up between our scale-down and our delete.
            await client.endpoints.save({ id: target, name: "racer", gpuIds: "AMPERE_24", templateId: TPL, workersMin: 1, workersMax: 1 });
            // The platform's own refusal is what the provider gets.
            const refusal = await client.endpoints.delete(target, opts).catch((e) => e);
            expect(refusal).toBeInstanceOf(ConflictError);
            throw refusal;
          }
          return client.endpoints.delete(target, opts);
        },
      }),
    };
    const deletesBefore = emu.counts().deleteEndpoint ?? 0;
    const savesBefore = emu.counts().saveEndpoint ?? 0;
    await provider({ client: () => racing as any }).delete(id, outs!);
    expect(raced).toBe(true);
    // Our scale-down, the racer's scale-up, our second scale-down.
    expect(emu.counts().saveEndpoint).toBe(savesBefore + 3);
    // The refused one (sent by the racer's check) and the one that succeeded.
    expect(emu.counts().deleteEndpoint).toBe(deletesBefore + 2);
    expect(live(id)).toBeUndefined();
  });

  test("a name with quotes, braces, backslashes and newlines survives create and read", async () => {
    const p = provider();
    const name = 'say "hi" {json: [1, {"a": 2}]} back\\slash\\\\ $var\nsecond line\r\n\ttab }) { mutation';
    const { id, outs } = await p.create(await inputs(p, { name, waitForWorkers: false }));
    expect(outs!.name).toBe(name);
    expect(live(id).name).toBe(name);
    const read = await p.read(id, outs!);
    expect(read.props!.name).toBe(name);
    expect((read.inputs as any).name).toBe(name);
    await p.delete(id, outs!);
  });

  test("an endpoint renamed outside the stack: refresh (once or more) keeps the name last applied in the inputs, so the next preview renames it back (as a pod's)", async () => {
    const p = provider();
    const declared = { __logicalName: "api", waitForWorkers: false };
    const created = await inputs(p, declared);
    const { id, outs } = await p.create(created);
    await client.endpoints.save({ id, name: "renamed-in-console", gpuIds: "AMPERE_24", templateId: TPL });
    // Refreshed twice: the second read starts from the first one's outputs, which hold the new name.
    const first = await p.read(id, outs!);
    const read = await p.read(id, first.props!);
    expect(read.props!.name).toBe("renamed-in-console");
    expect((first.inputs as any).name).toBe(created.name);
    expect((read.inputs as any).name).toBe(created.name);
    // The program, still without a name, keeps the auto-name: the rename shows and up puts it back.
    const next = await inputs(p, declared, read.inputs as any);
    expect(next.name).toBe(created.name);
    expect(await p.diff(id, read.props!, next)).toMatchObject({ changes: true, replaces: [] });
    await p.delete(id, outs!);
  });

  test("read shows drift in props and inputs; a gone endpoint reads as gone and deletes as success", async () => {
    const p = provider();
    const { id, outs } = await p.create(await inputs(p, { name: "drifty", waitForWorkers: false, workersMax: 2 }));
    // Changed behind Pulumi's back.
    await client.endpoints.save({ id, name: "drifty", gpuIds: "ADA_24", templateId: TPL, idleTimeout: 99 });
    const read = await p.read(id, outs!);
    expect(read.id).toBe(id);
    expect(read.props).toMatchObject({ gpuIds: "ADA_24", idleTimeout: 99, waitForWorkers: false });
    expect(read.inputs).toMatchObject({ name: "drifty", gpuIds: "ADA_24", idleTimeout: 99, type: "QB" });
    // The program still says AMPERE_24: the next diff shows it.
    const back = await inputs(p, { name: "drifty", waitForWorkers: false, workersMax: 2 });
    expect(await p.diff(id, read.props!, back)).toMatchObject({ changes: true, replaces: [] });

    // Removed behind Pulumi's back.
    await client.endpoints.save({ id, name: "drifty", gpuIds: "ADA_24", templateId: TPL, workersMin: 0, workersMax: 0 });
    await client.endpoints.delete(id);
    expect(await p.read(id, outs!)).toEqual({});
    const before = emu.counts().deleteEndpoint;
    await expect(p.delete(id, outs!)).resolves.toBeUndefined();
    expect(emu.counts().deleteEndpoint).toBe(before);
    // An update of a gone endpoint says what to do, with or without fields to send.
    const gone = /no longer exists on the platform; run `pulumi refresh`/;
    await expect(p.update(id, outs!, await inputs(p, { name: "drifty", waitForWorkers: false, workersMax: 2 }))).rejects.toThrow(gone);
    await expect(p.update(id, outs!, await inputs(p, { name: "drifty-2", waitForWorkers: false }))).rejects.toThrow(gone);
  });


  test("a declared field removed from the program shows as a change and up puts the platform back to its default", async () => {
    const p = provider();
    const dc = (await client.catalog.dataCenters())[0]!.id;
    const volume = await client.networkVolumes.create({ name: "ep-vol", size: 10, dataCenter: dc });
    const declared = { name: "declared-away", workersMin: 1, workersMax: 2, networkVolumeId: volume.id, locations: "US", flashBootType: "FLASHBOOT" };
    const first = await inputs(p, declared);
    const { id, outs } = await p.create(first);
    expect(live(id)).toMatchObject({ workersMin: 1, workersMax: 2, networkVolumeId: volume.id });

    const removed = await inputs(p, { name: "declared-away" }, first);
    expect(await p.diff(id, outs!, removed)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const after = (await p.update(id, outs!, removed)).outs!;
    expect(live(id)).toMatchObject({ workersMin: 0, workersMax: 0, networkVolumeId: null, locations: null, flashBootType: "OFF" });
    // A second preview shows nothing: the platform is where the program says.
    expect(await p.diff(id, after, removed)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    await p.delete(id, after);
    await client.networkVolumes.delete(volume.id);
  });

  test("gpuCount and executionTimeoutMs change in place; fields left to the platform keep their live values through an update and the scale-to-zero", async () => {
    const p = provider();
    const first = await inputs(p, { name: "full-save", workersMin: 1, workersMax: 2, gpuCount: 2, executionTimeoutMs: 60_000 });
    const { id, outs } = await p.create(first);
    expect(live(id)).toMatchObject({ gpuCount: 2, executionTimeoutMs: 60_000 });
    expect(outs).toMatchObject({ gpuCount: 2, executionTimeoutMs: 60_000 });
    // Fields the program does not declare, set outside the stack, then read back (a refresh).
    const kept = { idleTimeout: 60, scalerType: "REQUEST_COUNT", scalerValue: 9, flashBootType: "FLASHBOOT", locations: "US" } as const;
    await client.endpoints.save({ id, name: "full-save", gpuIds: "AMPERE_24", templateId: TPL, workersMin: 1, workersMax: 2, gpuCount: 2, executionTimeoutMs: 60_000, ...kept });
    const olds = (await p.read(id, outs)).props as ServerlessEndpointOutputs;
    expect(olds).toMatchObject(kept);

    const news = await inputs(p, { name: "full-save", workersMin: 1, workersMax: 3, gpuCount: 4, executionTimeoutMs: 0 }, first);
    expect(await p.diff(id, olds, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const updated = (await p.update(id, olds, news)).outs!;
    expect(live(id)).toMatchObject({ workersMax: 3, gpuCount: 4, executionTimeoutMs: 0, ...kept });
    expect(updated).toMatchObject({ workersMax: 3, gpuCount: 4, executionTimeoutMs: 0, ...kept });
    expect(await p.diff(id, updated, news)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });

    // The scale-to-zero before the delete sends them all too, at their live values.
    const from = emu.exchanges().length;
    await p.delete(id, updated);
    const saves = emu
      .exchanges()
      .slice(from)
      .map((x) => (x.requestBody as { query?: string } | undefined)?.query ?? "")
      .filter((q) => q.includes("saveEndpoint"));
    expect(saves).toHaveLength(1);
    for (const piece of ["idleTimeout: 60", 'scalerType: "REQUEST_COUNT"', "scalerValue: 9", "flashBootType: FLASHBOOT", 'locations: "US"', "gpuCount: 4", "executionTimeoutMs: 0", "workersMin: 0", "workersMax: 0"]) {
      expect(saves[0]).toContain(piece);
    }
  });

  test("removing gpuCount and executionTimeoutMs once declared puts back the platform's defaults (1, 300000)", async () => {
    const p = provider();
    const first = await inputs(p, { name: "count-away", gpuCount: 3, executionTimeoutMs: 5_000 });
    const { id, outs } = await p.create(first);
    const removed = await inputs(p, { name: "count-away" }, first);
    expect(await p.diff(id, outs!, removed)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const after = (await p.update(id, outs!, removed)).outs!;
    expect(live(id)).toMatchObject({ gpuCount: 1, executionTimeoutMs: 300_000 });
    expect(await p.diff(id, after, removed)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    await p.delete(id, after);
  });

  test("removing a field the platform has no default for is refused at preview, saying the platform keeps the value", async () => {
    const p = provider();
    const first = await inputs(p, { name: "kept", idleTimeout: 60, scalerType: "REQUEST_COUNT", scalerValue: 3 });
    const r = await p.check(first, { gpuIds: "AMPERE_24", templateId: TPL, name: "kept", scalerValue: 3 });
    expect(r.failures).toEqual([
      { property: "idleTimeout", reason: expect.stringMatching(/platform keeps its idleTimeout \(60\).*declare the value you want/) },
      { property: "scalerType", reason: expect.stringMatching(/platform keeps its scalerType \("REQUEST_COUNT"\)/) },
    ]);
  });
});

describe("bounded waits (fake clock: the deadline passes without real waiting)", () => {
  let slow: Emulator;
  let slowClient: ComputePlatform;
  let SLOW_TPL: string;
  beforeAll(async () => {
    // Workers that take an hour to start and to drain.
    slow = await startEmulator({ port: 0, quotas: QUOTAS, timings: { startingMs: 3_600_000, drainMs: 3_600_000 } });
    slowClient = new ComputePlatform({ apiKey: slow.apiKey, apiUrl: slow.url, serverlessUrl: slow.url, pacing: false, maxRetries: 1 });
    SLOW_TPL = await createServerlessTemplate(slow.url, slow.apiKey);
  });
  afterAll(async () => {
    await slowClient?.close();
    await slow?.close();
  });

  function fakeClock(): Clock & { slept: number } {
    let t = 0;
    const clock = {
      slept: 0,
      now: () => t,
      sleep: async (ms: number) => {
        t += ms;
        clock.slept += ms;
        await new Promise((r) => setImmediate(r));
      },
    };
    return clock;
  }

  test("a create whose workers never run fails with the id kept, and the next up waits again", async () => {
    const clock = fakeClock();
    const p = provider({ client: () => slowClient, clock, pollIntervalMs: 1000, maxPollIntervalMs: 30_000 });
    const checked = await inputs(p, { name: "never-ready", templateId: SLOW_TPL, workersMin: 1, workersMax: 1, readyTimeoutSeconds: 120 });
    const err = await p.create(checked).then(
      () => undefined,
      (e) => e,
    );
    expect(err).toBeInstanceOf(EndpointNotReadyError);
    const ids = slow.state().endpoints.map((e: any) => e.id);
    expect(ids).toContain(err.id);
    expect(err.properties).toMatchObject({ name: "never-ready", templateId: SLOW_TPL, workersMin: 1, pods: [{ desiredStatus: "STARTING" }] });
    expect(err.reasons[0]).toMatch(/0 of 1 workers RUNNING after 120 s/);
    // Bounded by readyTimeoutSeconds, on the injected clock.
    expect(clock.now()).toBeGreaterThanOrEqual(120_000);
    expect(clock.now()).toBeLessThan(121_000);

    // An `up` after the failed one: no changes, but the update waits again (and fails again here).
    const again = await p.update(err.id, err.properties, checked).catch((e) => e);
    expect(again).toBeInstanceOf(EndpointNotReadyError);
    expect(again.id).toBe(err.id);
  });

  test("a delete whose workers are slow to drain is done once 0/0 is saved: no wait on the clock", async () => {
    const clock = fakeClock();
    const p = provider({ client: () => slowClient, clock, pollIntervalMs: 1000, maxPollIntervalMs: 30_000 });
    const { id, outs } = await p.create(await inputs(p, { name: "slow-drain", templateId: SLOW_TPL, workersMin: 1, workersMax: 1, waitForWorkers: false, drainTimeoutSeconds: 60 }));
    const before = clock.now();
    await p.delete(id, outs!);
    expect(slow.counts().deleteEndpoint).toBe(1);
    expect(slow.state().endpoints.find((e: any) => e.id === id)).toBeUndefined();
    // One tick of the shared poller (the read every delete of a stack shares), nothing more.
    expect(clock.now() - before).toBeLessThanOrEqual(1000);
  });

  test("an update whose workers never run fails keeping the Template's fingerprint, the version and the rollout state held, for the next up to wait for", async () => {
    const clock = fakeClock();
    const p = provider({ client: () => slowClient, clock, pollIntervalMs: 1000, maxPollIntervalMs: 30_000 });
    const first = await inputs(p, { name: "carry", templateId: SLOW_TPL, workersMax: 1, waitForWorkers: false });
    const { id, outs } = await p.create(first);
    const held = { template: { image: "img:1" }, version: 3, rollout: { inProgress: false, workersOnLatest: 0, workersTotal: 0, percentOnLatest: 100 } };
    const news = await inputs(p, { name: "carry", templateId: SLOW_TPL, workersMin: 1, workersMax: 1, readyTimeoutSeconds: 30 }, first);
    const err = await p.update(id, { ...outs!, ...held }, news).catch((e) => e);
    expect(err).toBeInstanceOf(EndpointNotReadyError);
    expect(err.id).toBe(id);
    expect(err.reasons[0]).toMatch(/0 of 1 workers RUNNING after 30 s/);
    expect(err.properties).toMatchObject({ ...held, workersMin: 1, pods: [{ desiredStatus: "STARTING" }] });
  });

  test("a change that rolls the workers waits for the rollout until rolloutTimeoutSeconds, failing with the rollout's state kept; with waitForRollout false it reads the state and does not wait", async () => {
    const clock = fakeClock();
    const p = provider({ client: () => slowClient, clock, pollIntervalMs: 1000, maxPollIntervalMs: 30_000 });
    const first = await inputs(p, { name: "rolling", templateId: SLOW_TPL, workersMin: 1, workersMax: 1, waitForWorkers: false });
    const { id, outs } = await p.create(first);
    const noWait = await inputs(p, { name: "rolling", templateId: SLOW_TPL, gpuIds: "ADA_24", workersMin: 1, workersMax: 1, waitForWorkers: false, waitForRollout: false }, first);
    const before = clock.now();
    const quick = (await p.update(id, outs!, noWait)).outs!;
    expect(clock.now() - before).toBeLessThan(1000);
    expect(quick).toMatchObject({ gpuIds: "ADA_24", rollout: { inProgress: expect.any(Boolean) } });
    expect(Object.keys(quick)).toContain("version");

    const waits = await inputs(p, { name: "rolling", templateId: SLOW_TPL, gpuIds: "AMPERE_48", workersMin: 1, workersMax: 1, waitForWorkers: false, rolloutTimeoutSeconds: 60 }, first);
    const from = clock.now();
    const err = await p.update(id, quick, waits).catch((e) => e);
    expect(err).toBeInstanceOf(EndpointNotReadyError);
    expect(err.id).toBe(id);
    expect(err.reasons).toEqual([expect.stringMatching(new RegExp(`^the rollout of endpoint ${id} to release 3 \\(gpu.pools \\["ADA_24"\\] -> \\["AMPERE_48"\\]\\) was not over after 60 s`))]);
    // The state as last read, kept with the outputs for the next up.
    expect(err.properties).toMatchObject({ gpuIds: "AMPERE_48", version: 3, rollout: { inProgress: true, workersOnLatest: 0, workersTotal: 2 } });
    expect(clock.now() - from).toBeGreaterThanOrEqual(60_000);
    expect(clock.now() - from).toBeLessThan(90_000);
  });

  /** The slow platform's client, its endpoint saves passed through `save` first. */
  const saving = (save: (e: any, real: () => Promise<any>) => Promise<any>) =>
    ({
      ...slowClient,
      endpoints: Object.assign(Object.create(slowClient.endpoints), { save: (e: any, o?: any) => save(e, () => slowClient.endpoints.save(e, o)) }),
    }) as unknown as ComputePlatform;

  test("an auto-named create is made under its pending name and takes its own once made; when its workers never run it still takes its name, and the error says so", async () => {
    const clock = fakeClock();
    const p = provider({ client: () => slowClient, clock, pollIntervalMs: 1000, maxPollIntervalMs: 30_000 });
    const ok = await inputs(p, { __logicalName: "auto-ok", templateId: SLOW_TPL, waitForWorkers: false });
    const saved: string[] = [];
    const q = provider({ client: () => saving((e, real) => (saved.push(e.name), real())), clock });
    const made = await q.create(ok);
    expect(saved).toEqual([`${ok.name}~creating`, ok.name]);
    expect(made.outs).toMatchObject({ name: ok.name });
    expect(slow.state().endpoints.find((e: any) => e.id === made.id)).toMatchObject({ name: ok.name });

    const late = await inputs(p, { __logicalName: "auto-late", templateId: SLOW_TPL, workersMin: 1, workersMax: 1, readyTimeoutSeconds: 30 });
    const err = await p.create(late).catch((e) => e);
    expect(err).toBeInstanceOf(EndpointNotReadyError);
    expect(err.reasons[0]).toMatch(/0 of 1 workers RUNNING after 30 s/);
    expect(err.properties).toMatchObject({ name: late.name, workersMin: 1 });
    expect(slow.state().endpoints.find((e: any) => e.id === err.id)).toMatchObject({ name: late.name });
  });

  test("an auto-named create whose rename fails is kept in state under its pending name, saying so", async () => {
    const clock = fakeClock();
    const p = provider({ client: () => slowClient, clock });
    const renameFails = saving((e, real) => (e.id ? Promise.reject(new Error("rename refused")) : real()));
    const q = provider({ client: () => renameFails, clock });
    const ready = await inputs(p, { __logicalName: "auto-unnamed", templateId: SLOW_TPL, waitForWorkers: false });
    const err = await q.create(ready).catch((e) => e);
    expect(err).toBeInstanceOf(EndpointNotReadyError);
    expect(err.reasons).toEqual([`endpoint ${err.id} was made, but giving it its name failed: rename refused`]);
    expect(err.properties).toMatchObject({ name: `${ready.name}~creating` });
    expect(slow.state().endpoints.find((e: any) => e.id === err.id)).toMatchObject({ name: `${ready.name}~creating` });

    // Its workers never run and the rename fails too: the wait's error, the pending name kept.
    const late = await inputs(p, { __logicalName: "auto-unnamed-late", templateId: SLOW_TPL, workersMin: 1, workersMax: 1, readyTimeoutSeconds: 30 });
    const err2 = await q.create(late).catch((e) => e);
    expect(err2).toBeInstanceOf(EndpointNotReadyError);
    expect(err2.reasons).toEqual([expect.stringMatching(/0 of 1 workers RUNNING after 30 s/)]);
    expect(err2.properties).toMatchObject({ name: `${late.name}~creating` });
  });

  test("a wait can be cancelled", async () => {
    const controller = new AbortController();
    // Cancelled as the wait first pauses between reads: after the save was answered, however
    // slow the machine (a timer could fire before the save is answered, and abort that instead).
    const cancelling: Clock = {
      now: () => systemClock.now(),
      sleep: (ms, signal) => {
        controller.abort(new Error("cancelled by test"));
        return systemClock.sleep(ms, signal);
      },
    };
    const p = provider({
      client: () => slowClient,
      clock: cancelling,
      signal: controller.signal,
      pollIntervalMs: 5,
      maxPollIntervalMs: 5,
    });
    const checked = await inputs(p, { name: "cancel-me", templateId: SLOW_TPL, workersMin: 1, workersMax: 1 });
    const err = await p.create(checked).catch((e) => e);
    // Still an init failure with the id: the endpoint exists and must not be forgotten.
    expect(err).toBeInstanceOf(EndpointNotReadyError);
    expect(err.reasons[0]).toMatch(/cancelled by test/);
    expect(slow.state().endpoints.map((e: any) => e.id)).toContain(err.id);
  });
});

describe("what the provider refuses, prints, prices and restores (its own steps, pinned)", () => {
  let em: Emulator;
  let full: ComputePlatform;
  let T: string;
  beforeAll(async () => {
    em = await startEmulator({ port: 0, quotas: QUOTAS, timings: { provisioningMs: 10, startingMs: 20, drainMs: 20 } });
    full = new ComputePlatform({ apiKey: em.apiKey, apiUrl: em.url, serverlessUrl: em.url, pacing: false, maxRetries: 1 });
    T = await createServerlessTemplate(em.url, em.apiKey);
  });
  afterAll(async () => {
    await full?.close();
    await em?.close();
  });

  function fakeClock(): Clock & { slept: number[] } {
    let t = 0;
    const clock = {
      slept: [] as number[],
      now: () => t,
      sleep: async (ms: number) => {
        t += ms;
        clock.slept.push(ms);
        await new Promise((r) => setImmediate(r));
      },
    };
    return clock;
  }

  function made(over: Partial<ConstructorParameters<typeof ServerlessEndpointProvider>[0]> = {}) {
    const printed: string[] = [];
    const p = new ServerlessEndpointProvider({ client: () => full, pollIntervalMs: 5, maxPollIntervalMs: 20, print: (l) => printed.push(l), ...over });
    return { p, printed };
  }

  async function checked(p: ServerlessEndpointProvider, news: Record<string, unknown>, olds?: Record<string, unknown>) {
    const r = await p.check(olds ?? {}, { gpuIds: "AMPERE_24", templateId: T, ...news });
    expect(r.failures ?? []).toEqual([]);
    return r.inputs!;
  }

  const ops = (from: number) =>
    em
      .requestLog()
      .slice(from)
      .map((e) => (e.path === "/graphql" ? e.op : `${e.method} ${e.path}`));

  test("diff: a workers order the platform refuses fails the preview, naming the endpoint (else its id) and the field to declare; a replacement is not refused; no request", async () => {
    const { p, printed } = made();
    const first = await checked(p, { name: "order", workersMax: 5 });
    // Refreshed: someone set workersMin 3 outside the stack; the program leaves it undeclared.
    const olds = { ...first, workersMin: 3 } as any;
    const news = await checked(p, { name: "order", workersMax: 2 }, first);
    const from = em.requestLog().length;
    const refusal =
      "workersMin 3 (the endpoint's, which the program leaves undeclared) would be above workersMax 2 (declared), which the platform refuses. " +
      "Declare workersMin (at most 2), or change the one declared.";
    await expect(p.diff("ep-order", olds, news)).rejects.toThrow(new Error(`ServerlessEndpoint order: ${refusal}`));
    const { name: _name, ...nameless } = olds;
    await expect(p.diff("ep-order", nameless, news)).rejects.toThrow(new Error(`ServerlessEndpoint ep-order: ${refusal}`));
    expect(printed).toEqual([]);
    // The same order with a type change: a new endpoint is made as declared, nothing of the old one's is kept.
    const lb = await checked(p, { name: "order", type: "LB", workersMax: 2 }, first);
    expect(await p.diff("ep-order", olds, lb)).toEqual({ changes: true, replaces: ["type"], deleteBeforeReplace: false });
    expect(printed).toEqual([
      'ServerlessEndpoint "ep-order": replaced (type): a new one is made, then the old deleted; lost: its workers, its id and its request URLs (callers must use the new endpoint\'s)',
    ]);
    expect(ops(from)).toEqual([]);
  });

  test("diff prints the step line of a change, and nothing when nothing changes", async () => {
    const { p, printed } = made();
    const first = await checked(p, { name: "stepper", workersMax: 2 });
    const olds = { ...first, id: "ep-step" } as any;
    expect(await p.diff("ep-step", olds, await checked(p, { name: "stepper", workersMax: 2 }, first))).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect(printed).toEqual([]);
    expect(await p.diff("ep-step", olds, await checked(p, { name: "stepper", workersMax: 4 }, first))).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(printed).toEqual(['ServerlessEndpoint "ep-step": updated in place (workersMax)']);
  });

  /** A client whose endpoint deletes go through `del` first (the platform's own client underneath). */
  function deleting(del: (target: string, opts: any, real: () => Promise<void>) => Promise<void>, save?: (e: any, opts: any, real: () => Promise<any>) => Promise<any>) {
    return {
      ...full,
      endpoints: Object.assign(Object.create(full.endpoints), {
        delete: (target: string, opts?: any) => del(target, opts, () => full.endpoints.delete(target, opts)),
        ...(save ? { save: (e: any, opts?: any) => save(e, opts, () => full.endpoints.save(e, opts)) } : {}),
      }),
    } as unknown as ComputePlatform;
  }

  test("delete: a delete refused (409) each time is tried again with backoff until drainTimeoutSeconds, then the refusal is passed on with the workers put back", async () => {
    const { p } = made();
    const { id, outs } = await p.create(await checked(p, { name: "refused", workersMin: 1, workersMax: 2, waitForWorkers: false }));
    // Someone scales it up again between every scale-down and delete: the platform refuses each delete.
    const racing = deleting(async (target, opts, real) => {
      await full.endpoints.save({ id: target, name: "refused", gpuIds: "AMPERE_24", templateId: T, workersMin: 1, workersMax: 2 });
      await real();
    });
    const clock = fakeClock();
    const from = em.requestLog().length;
    const err = await made({ client: () => racing, clock, pollIntervalMs: 1000, maxPollIntervalMs: 4000 })
      .p.delete(id, { ...outs!, drainTimeoutSeconds: 9 })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ConflictError);
    // Backoff from pollIntervalMs, doubling up to maxPollIntervalMs, the last pause cut at the deadline.
    // Given up at the deadline, the last pause cut short to end there.
    expect(clock.now()).toBe(9_000);
    // Backoff from pollIntervalMs, doubling (beside the shared read's own pauses).
    expect(clock.slept.filter((ms) => ms > 1000)).toEqual([2000, 3000]);
    // Each attempt: a read, our scale-down, the racer's scale-up, the refused delete; then the workers put back as they were.
    const attempt = ["myself", "saveEndpoint", "saveEndpoint", "deleteEndpoint"];
    expect(ops(from)).toEqual([...attempt, ...attempt, ...attempt, ...attempt, "saveEndpoint"]);
    expect(live(id, em)).toMatchObject({ workersMin: 1, workersMax: 2 });
    await p.delete(id, outs!);
  });

  test("delete: a failure other than a refusal is passed on at once, the workers put back; when putting them back fails too, the error says what the endpoint has now", async () => {
    const { p, printed } = made();
    const { id, outs } = await p.create(await checked(p, { name: "broken", workersMin: 1, workersMax: 2, waitForWorkers: false }));
    const clock = fakeClock();
    const failing = deleting(async () => {
      throw new Error("the platform is down");
    });
    await expect(made({ client: () => failing, clock }).p.delete(id, outs!)).rejects.toThrow(new Error("the platform is down"));
    // No pause but the shared read's one tick: not tried again.
    expect(clock.slept).toEqual([5]);
    expect(live(id, em)).toMatchObject({ workersMin: 1, workersMax: 2 });

    let saves = 0;
    const worse = deleting(
      async () => {
        throw new Error("the platform is down");
      },
      async (e, _opts, real) => {
        if (++saves > 1) throw new Error("the save failed as well");
        return real();
      },
    );
    await expect(made({ client: () => worse, clock }).p.delete(id, outs!)).rejects.toThrow(
      new Error(
        `the platform is down; endpoint ${id} was scaled to 0/0 workers first, and putting back 1/2 failed (the save failed as well): run \`pulumi refresh\` before \`pulumi up\``,
      ),
    );
    expect(live(id, em)).toMatchObject({ workersMin: 0, workersMax: 0 });
    // A delete the platform answers 404 (gone meanwhile) is success; the line says what was lost.
    const gone = deleting(async (_t, _o, real) => {
      await real();
      await real();
    });
    await made({ client: () => gone }).p.delete(id, outs!);
    expect(live(id, em)).toBeUndefined();
    expect(printed).toEqual([]);
  });


  test("create prices one worker from the catalog's first tier; a tier the catalog does not price, no catalog, or a catalog that fails leave the price out and the create goes on", async () => {
    const gpus = await full.catalog.gpus();
    const usd = Math.max(...gpus.filter((g) => g.pool === "ADA_24").map((g) => g.price.secure));
    expect(usd).toBeGreaterThan(0);
    const { p } = made();
    const priced = await p.create(await checked(p, { name: "priced", gpuIds: "ADA_24,AMPERE_24", waitForWorkers: false }));
    expect(priced.outs).toMatchObject({ __workerPrice: { tier: "ADA_24", usd } });
    // The emulator's catalog lists no AMPERE_24 type.
    expect(gpus.filter((g) => g.pool === "AMPERE_24")).toEqual([]);
    const unlisted = await p.create(await checked(p, { name: "unlisted", gpuIds: "AMPERE_24", waitForWorkers: false }));
    expect(Object.keys(unlisted.outs!)).not.toContain("__workerPrice");

    const noCatalog = { endpoints: full.endpoints, serverless: full.serverless } as unknown as ComputePlatform;
    const from = em.requestLog().length;
    const unpriced = await made({ client: () => noCatalog }).p.create(await checked(p, { name: "unpriced", gpuIds: "ADA_24", waitForWorkers: false }));
    expect(Object.keys(unpriced.outs!)).not.toContain("__workerPrice");
    expect(Object.keys(unpriced.outs!)).not.toContain("hourlyCost");

    const failingCatalog = { endpoints: full.endpoints, serverless: full.serverless, catalog: { gpus: () => Promise.reject(new Error("catalog down")) } } as unknown as ComputePlatform;
    const failed = await made({ client: () => failingCatalog }).p.create(await checked(p, { name: "unpriced-2", gpuIds: "ADA_24", waitForWorkers: false }));
    expect(Object.keys(failed.outs!)).not.toContain("__workerPrice");
    expect(live(failed.id, em)).toMatchObject({ name: "unpriced-2", gpuIds: "ADA_24" });
    // Neither read the catalog over HTTP.
    expect(ops(from).filter((o) => /gpu/i.test(o))).toEqual([]);
    for (const one of [priced, unlisted, unpriced, failed]) await p.delete(one.id, one.outs!);
  });

  test("create and update read the endpoint's version and rollout; a client with no REST half leaves them out; a failed read leaves them out unless up waits for a rollout, which then fails naming the endpoint", async () => {
    const { p } = made();
    const first = await checked(p, { name: "versioned", workersMax: 1, waitForWorkers: false });
    const { id, outs } = await p.create(first);
    const releases = await full.serverless.releases(id);
    expect(outs).toMatchObject({
      version: releases.endpointVersion ?? releases.releases[0]?.version ?? null,
      rollout: { inProgress: releases.rollout.inProgress, workersOnLatest: releases.rollout.workersOnLatest, workersTotal: releases.rollout.workersTotal, percentOnLatest: releases.rollout.percentOnLatest },
    });

    const graphqlOnly = { endpoints: full.endpoints } as unknown as ComputePlatform;
    const more = await checked(p, { name: "versioned", workersMax: 2, waitForWorkers: false }, first);
    const plain = (await made({ client: () => graphqlOnly }).p.update(id, outs!, more)).outs!;
    expect(Object.keys(plain)).not.toContain("version");
    expect(Object.keys(plain)).not.toContain("rollout");
    expect(live(id, em)).toMatchObject({ workersMax: 2 });

    const unread = {
      ...full,
      endpoints: full.endpoints,
      catalog: full.catalog,
      serverless: Object.assign(Object.create(full.serverless), { releases: () => Promise.reject(new Error("releases down")) }),
    } as unknown as ComputePlatform;
    const q = made({ client: () => unread }).p;
    // No rollout to wait for (workersMax does not roll the workers): the outputs without the version.
    const fewer = await checked(p, { name: "versioned", workersMax: 1, waitForWorkers: false }, first);
    const quiet = (await q.update(id, plain, fewer)).outs!;
    expect(Object.keys(quiet)).not.toContain("version");
    expect(quiet).toMatchObject({ workersMax: 1 });
    // A change that rolls the workers, with up waiting for the rollout: the update fails, keeping the endpoint.
    const rolled = await checked(p, { name: "versioned", workersMax: 1, gpuIds: "ADA_24", waitForWorkers: false }, first);
    const err = await q.update(id, quiet, rolled).catch((e) => e);
    expect(err).toBeInstanceOf(EndpointNotReadyError);
    expect(err.id).toBe(id);
    expect(err.reasons).toEqual([`waiting for the rollout of endpoint ${id} failed: releases down`]);
    expect(err.properties).toMatchObject({ gpuIds: "ADA_24", workersMax: 1 });
    expect(Object.keys(err.properties)).not.toContain("version");
    await p.delete(id, outs!);
  });

  test("read keeps what no platform read gives back (the Template's fingerprint applied, the version, the rollout) and adds none state lacks", async () => {
    const { p } = made();
    const { id, outs } = await p.create(await checked(p, { name: "carried", waitForWorkers: false }));
    const kept = { template: { image: "img:1" }, version: 7, rollout: { inProgress: false, workersOnLatest: 0, workersTotal: 0, percentOnLatest: 100 } };
    const { version: _v, rollout: _r, ...bare } = outs as any;
    const read = await p.read(id, { ...bare, ...kept });
    expect(read.props).toMatchObject(kept);
    const plain = await p.read(id, bare);
    expect(Object.keys(plain.props!).filter((k) => ["template", "version", "rollout"].includes(k))).toEqual([]);
    await p.delete(id, outs!);
  });


  test("create: an earlier try a killed plugin left (the pending name) is deleted once the new endpoint exists; a replacement takes over one of its type instead", async () => {
    const { p, printed } = made();
    const fresh = await checked(p, { __logicalName: "recovered", waitForWorkers: false });
    const left = await full.endpoints.save({ name: `${fresh.name}~creating`, gpuIds: "AMPERE_24", templateId: T });
    const made1 = await p.create(fresh);
    expect(made1.id).not.toBe(left.id);
    expect(live(left.id, em)).toBeUndefined();
    expect(live(made1.id, em)).toMatchObject({ name: fresh.name });
    expect(printed).toEqual([expect.stringMatching(new RegExp(`^ServerlessEndpoint ${left.id}: deleted; lost: `))]);

    // The engine's replace of it (type is fixed), in a later `up` (its own list of the account): check, diff, check again, then the create.
    const later = made().p;
    const lbDeclared = { __logicalName: "recovered", type: "LB", waitForWorkers: false };
    const first = await checked(later, lbDeclared, fresh);
    expect(await later.diff(made1.id, made1.outs!, first)).toMatchObject({ changes: true, replaces: ["type"] });
    // The engine checks a replacement again without the old inputs.
    const replacing = await checked(later, lbDeclared);
    // Two tries of the replacement left: one of its type (taken over), then one of the other type (not fit; deleted).
    const fit = await full.endpoints.save({ name: `${replacing.name}~creating`, gpuIds: "AMPERE_24", templateId: T, type: "LB" } as any);
    const wrongType = await full.endpoints.save({ name: `${replacing.name}~creating`, gpuIds: "AMPERE_24", templateId: T, type: "QB" } as any);
    expect(live(fit.id, em)).toMatchObject({ type: "LB" });
    const taken = await later.create(replacing);
    expect(taken.id).toBe(fit.id);
    expect(live(fit.id, em)).toMatchObject({ name: replacing.name, type: "LB" });
    expect(live(wrongType.id, em)).toBeUndefined();
    await p.delete(taken.id, taken.outs!);
    await p.delete(made1.id, made1.outs!);
  });


  test("an endpoint declared with api \"rest\" is made, read and deleted over REST v2 alone, as state says", async () => {
    const { p } = made();
    const from = em.requestLog().length;
    const r = await p.check({}, { name: "over-rest", api: "rest", gpuIds: "AMPERE_24", container: { image: "worker:1" }, waitForWorkers: false });
    expect(r.failures ?? []).toEqual([]);
    const { id, outs } = await p.create(r.inputs!);
    expect(outs).toMatchObject({ name: "over-rest", api: "rest" });
    expect((await p.read(id, outs!)).props).toMatchObject({ name: "over-rest", api: "rest" });
    await p.delete(id, outs!);
    expect(live(id, em)).toBeUndefined();
    // No GraphQL request; the catalog read (once per client) left out.
    expect(ops(from).filter((o) => o !== "GET /v2/catalog/gpus")).toEqual([
      "GET /v2/serverless",
      "POST /v2/serverless",
      `GET /v2/serverless/${id}/releases`,
      `GET /v2/serverless/${id}`,
      `GET /v2/serverless/${id}/workers`,
      `GET /v2/serverless/${id}`,
      `PATCH /v2/serverless/${id}`,
      `DELETE /v2/serverless/${id}`,
    ]);
  });


  test("adopt: an existing endpoint becomes the resource with its id, only what differs sent; one of another type is refused at check, naming the fixed type and the way out", async () => {
    const { p } = made();
    const existing = await full.endpoints.save({ name: "adoptee", gpuIds: "AMPERE_24", templateId: T, workersMax: 1 });
    const r = await p.check({}, { name: "adoptee", adopt: existing.id, gpuIds: "AMPERE_24", templateId: T, workersMax: 2, waitForWorkers: false });
    expect(r.failures ?? []).toEqual([]);
    const from = em.requestLog().length;
    const adopted = await p.create(r.inputs!);
    expect(adopted.id).toBe(existing.id);
    expect(adopted.outs).toMatchObject({ name: "adoptee", workersMax: 2 });
    expect(live(existing.id, em)).toMatchObject({ workersMax: 2 });
    expect(ops(from).filter((o) => o === "saveEndpoint")).toHaveLength(1);

    const other = await p.check({}, { name: "adoptee", adopt: existing.id, type: "LB", gpuIds: "AMPERE_24", templateId: T });
    expect(other.failures).toEqual([
      {
        property: "adopt",
        reason:
          `adopt: endpoint ${existing.id} differs from the declaration in type, which cannot change on an existing endpoint; declare it as the endpoint has it (type: "QB"), ` +
          "or remove adopt to create a new endpoint as declared (its id and requestUrls would change)",
      },
    ]);
    await p.delete(existing.id, adopted.outs!);
  });


  test("the bound Template's fingerprint the program hands over is recorded as applied by create and by update, with no save for it", async () => {
    const { p } = made();
    const rolls = (image: string) => ({ image, args: "", ports: [], env: [], envDigest: "e0", registry: null });
    const first = await checked(p, { name: "fingerprinted", waitForWorkers: false, template: rolls("worker:1") });
    const { id, outs } = await p.create(first);
    expect(outs!.template).toEqual(rolls("worker:1"));
    const next = await checked(p, { name: "fingerprinted", waitForWorkers: false, waitForRollout: false, template: rolls("worker:2") }, first);
    const saves = em.counts().saveEndpoint ?? 0;
    const updated = (await p.update(id, outs!, next)).outs!;
    expect(updated.template).toEqual(rolls("worker:2"));
    expect(em.counts().saveEndpoint ?? 0).toBe(saves);
    await p.delete(id, updated);
  });

});
