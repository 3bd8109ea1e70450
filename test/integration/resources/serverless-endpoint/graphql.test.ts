/**
 * The GraphQL dialect (graphql.ts), called directly against the emulator over real HTTP, on a
 * platform that resets the fields a save leaves out: a create saves the inputs under the name
 * given; a scale and a rename send every other field at its live value (the type as answered),
 * so nothing but what they change changes; an update saves what changed and keeps the rest,
 * reads first the fields state lacks, and sends nothing when nothing changed; an endpoint gone
 * answers as gone; reads that come together share a list; which listed endpoint a create's
 * look-up takes for its own. The wait for workers runs on a clock the emulator shares, so its
 * reads are counted and its sleeps exact: half again longer each read up to the ceiling, to its
 * deadline and no more, none with no worker to wait for, an endpoint deleted or a wait cancelled
 * meanwhile named in the error that keeps the endpoint's id.
 */
import { BadRequestError, ComputePlatform, type Endpoint } from "../../../../src/client";
import { type Emulator, startEmulator } from "../../../../src/emulator";
import { EndpointNotReadyError } from "../../../../src/resources/serverless-endpoint/dialect";
import { GraphqlDialect } from "../../../../src/resources/serverless-endpoint/graphql";
import { localSettings } from "../../../../src/resources/serverless-endpoint/plan";
import type { EndpointInputs, ServerlessEndpointOutputs } from "../../../../src/resources/serverless-endpoint/schema";
import { createServerlessTemplate } from "../../../helpers/emulator-fixtures";
import { clockDoing, FakeClock } from "../../../helpers/fake-clock";

let emu: Emulator;
let client: ComputePlatform;
let dialect: GraphqlDialect;
let TPL: string;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, graphqlSaveResets: true, quotas: { minute: 100_000, hour: 1_000_000, day: 10_000_000 }, timings: { provisioningMs: 10, startingMs: 60_000, drainMs: 10 } });
  client = new ComputePlatform({ apiKey: emu.apiKey, apiUrl: emu.url, serverlessUrl: emu.url, pacing: false, maxRetries: 1 });
  dialect = new GraphqlDialect({ client: () => client, clock: { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) }, pollIntervalMs: 5, maxPollIntervalMs: 20, workerPrice: async () => ({}) });
  TPL = await createServerlessTemplate(emu.url, emu.apiKey);
});

afterAll(async () => {
  await client?.close();
  await emu?.close();
});

const saves = () => emu.counts().saveEndpoint ?? 0;
const live = (id: string) => client.endpoints.get(id);
const noWait = localSettings({ waitForWorkers: false });

async function endpoint(name: string, over: Record<string, unknown> = {}): Promise<Endpoint> {
  return client.endpoints.save({ name, gpuIds: "ADA_24", templateId: TPL, workersMin: 0, workersMax: 3, idleTimeout: 17, scalerType: "REQUEST_COUNT", scalerValue: 6, gpuCount: 2, ...over });
}

test("a scale saves the bounds and every other field at its live value: nothing else changes", async () => {
  const ep = await endpoint("scaled");
  await dialect.scale(ep, undefined, { min: 0, max: 0 });
  expect(await live(ep.id)).toMatchObject({ name: "scaled", workersMin: 0, workersMax: 0, idleTimeout: 17, scalerType: "REQUEST_COUNT", scalerValue: 6, gpuCount: 2 });
  expect(dialect.boundsOf(await live(ep.id))).toEqual({ min: 0, max: 0 });
});

test("a rename changes only the name", async () => {
  const ep = await endpoint("pending~creating");
  await dialect.rename(ep, { name: "renamed", templateId: TPL } as EndpointInputs);
  expect(await live(ep.id)).toMatchObject({ name: "renamed", workersMax: 3, idleTimeout: 17, scalerValue: 6, gpuCount: 2 });
});

test("an update with nothing to save sends no save and answers the endpoint as read; one gone is named as gone", async () => {
  const ep = await endpoint("steady");
  const olds = dialect.outputs(ep, noWait, "QB");
  const before = saves();
  const news = { name: "steady", gpuIds: "ADA_24", templateId: TPL, workersMin: 0, workersMax: 3, idleTimeout: 17, scalerType: "REQUEST_COUNT", scalerValue: 6, gpuCount: 2 } as EndpointInputs;
  expect(dialect.changes(olds, news)).toEqual([]);
  await expect(dialect.update(ep.id, olds, news, noWait)).resolves.toMatchObject({ name: "steady", workersMax: 3 });
  expect(saves()).toBe(before);
  await dialect.scale(ep, undefined, { min: 0, max: 0 });
  await dialect.remove(ep.id);
  await expect(dialect.read(ep.id, olds, noWait)).resolves.toBeUndefined();
  const err = await dialect.update(ep.id, olds as ServerlessEndpointOutputs, { ...news, workersMax: 4 }, noWait).catch((e) => e);
  expect(err.message).toMatch(/^ServerlessEndpoint "steady" \(\S+\) no longer exists on the platform; run `pulumi refresh`/);
});

test("a wait for workers that runs out keeps the endpoint, with its id and what it has", async () => {
  const ep = await endpoint("cold", { workersMin: 1 });
  const err = await dialect.settle(ep, localSettings({ readyTimeoutSeconds: 0 }), "QB").catch((e) => e);
  expect(err).toBeInstanceOf(EndpointNotReadyError);
  expect(err.id).toBe(ep.id);
  expect(err.properties).toMatchObject({ name: "cold", templateId: TPL, workersMin: 1 });
  expect(err.reasons[0]).toMatch(/has 0 of 1 workers RUNNING after 0 s; it is kept in state and the next `pulumi up` waits again/);
  // Not waiting: the endpoint as saved, at once.
  await expect(dialect.settle(ep, noWait, "QB")).resolves.toMatchObject({ name: "cold", workersMin: 1 });
});

test("a create's look-up takes an endpoint of its name, template and type; one of no type listed is taken too", () => {
  const ours = dialect.isOurs({ templateId: TPL, type: "QB" } as EndpointInputs, "api-1a2b3c4~creating");
  const listed = { id: "e", name: "api-1a2b3c4~creating", templateId: TPL, type: "QB" } as Endpoint;
  expect(ours(listed)).toBe(true);
  expect(ours({ ...listed, type: null } as never)).toBe(true);
  expect(ours({ ...listed, type: "LB" })).toBe(false);
  expect(ours({ ...listed, templateId: "tpl-other" })).toBe(false);
  expect(ours({ ...listed, name: "api" })).toBe(false);
  expect(dialect.typeOf({ ...listed, type: null } as never)).toBeUndefined();
});

test("a create saves the inputs under the name given; the list, the shared list and its poller read the account", async () => {
  const made = await dialect.create({ name: "ignored", gpuIds: "ADA_24", templateId: TPL, workersMin: 0, workersMax: 2, idleTimeout: 9 } as EndpointInputs, "made~creating", {});
  expect(await live(made.id)).toMatchObject({ name: "made~creating", gpuIds: "ADA_24", templateId: TPL, workersMax: 2, idleTimeout: 9 });
  expect((await dialect.list()).map((e) => e.id)).toContain(made.id);
  expect(dialect.sharedList()).toBe(dialect.sharedList());
  const shared = dialect.sharedList();
  expect((await shared.since(shared.calls)).map((e) => e.id)).toContain(made.id);
  await expect(dialect.sharedPoller().wait(made.id, { description: "listed", timeoutMs: 5000, until: (e) => (e ? "done" : "pending") })).resolves.toMatchObject({ id: made.id });
});

test("the outputs carry a queue-based endpoint's request URLs, none for a load-balancing one", async () => {
  const ep = await endpoint("urls");
  expect(dialect.outputs(ep, noWait, "QB").requestUrls).toEqual({ run: `${emu.url}/v2/${ep.id}/run`, runSync: `${emu.url}/v2/${ep.id}/runsync` });
  expect(dialect.outputs({ ...ep, type: "LB" }, noWait, "LB")).not.toHaveProperty("requestUrls");
  expect(dialect.typeOf(ep)).toBe("QB");
});

test("an update saves what changed and keeps the rest; fields state lacks are read first; a read after it sees it", async () => {
  const ep = await endpoint("changing");
  const olds = dialect.outputs(ep, noWait, "QB");
  const news = { name: "changing", gpuIds: "ADA_24", templateId: TPL, workersMin: 0, workersMax: 5 } as EndpointInputs;
  await expect(dialect.read(ep.id, olds, noWait)).resolves.toMatchObject({ props: { workersMax: 3 } });
  expect(dialect.changes(olds, news)).toEqual(["workersMax"]);
  const reads = emu.counts().myself ?? 0;
  await expect(dialect.update(ep.id, olds, news, noWait)).resolves.toMatchObject({ name: "changing", workersMax: 5, idleTimeout: 17 });
  // State has every field: nothing is read before the save.
  expect(emu.counts().myself ?? 0).toBe(reads);
  await expect(dialect.read(ep.id, undefined, noWait)).resolves.toMatchObject({ props: { workersMax: 5, idleTimeout: 17 }, inputs: { workersMax: 5, idleTimeout: 17 } });
  // State of an earlier release without idleTimeout: read live before the save, so it is kept.
  const { idleTimeout: _lacking, ...older } = dialect.outputs(await live(ep.id), noWait, "QB");
  const lists = emu.counts().myself ?? 0;
  await expect(dialect.update(ep.id, older as ServerlessEndpointOutputs, { ...news, workersMax: 4 }, noWait)).resolves.toMatchObject({ workersMax: 4, idleTimeout: 17, scalerValue: 6 });
  expect(emu.counts().myself).toBe(lists + 1);
  expect(await live(ep.id)).toMatchObject({ workersMax: 4, idleTimeout: 17, scalerValue: 6, gpuCount: 2 });
  // Gone before that read: named as gone. Refused for another reason: that error, as it is.
  const refused = await dialect.update(ep.id, olds, { ...news, workersMin: 4, workersMax: 3 } as EndpointInputs, noWait).catch((e) => e);
  expect(refused).toBeInstanceOf(BadRequestError);
  expect(refused.message).toMatch(/^saveEndpoint: input.workersMin \(4\) must not exceed workersMax \(3\)/);
  await dialect.scale(await live(ep.id), undefined, { min: 0, max: 0 });
  await dialect.remove(ep.id);
  const gone = await dialect.update(ep.id, older as ServerlessEndpointOutputs, news, noWait).catch((e) => e);
  expect(gone.message).toMatch(/^ServerlessEndpoint "changing" \(\S+\) no longer exists on the platform/);
});

test("reads that come together share a list; one missing from it is looked for in a later list, and is gone", async () => {
  const here = await endpoint("together");
  const gone = await endpoint("apart");
  await dialect.scale(gone, undefined, { min: 0, max: 0 });
  await dialect.remove(gone.id);
  const [a, b] = await Promise.all([dialect.read(here.id, undefined, noWait), dialect.read(gone.id, undefined, noWait)]);
  expect(a).toMatchObject({ props: { name: "together" } });
  expect(b).toBeUndefined();
});

test("the diff, the rollout's reasons and the changed fields are the plan's", async () => {
  const ep = await endpoint("planned");
  const olds = dialect.outputs(ep, noWait, "QB");
  const news = { name: "planned", gpuIds: "ADA_24", templateId: "tpl-other", workersMin: 0, workersMax: 3 } as EndpointInputs;
  expect(dialect.diff(olds, news)).toMatchObject({ changes: true });
  expect(dialect.rolls(olds, news)).toEqual(["template.id"]);
  expect(dialect.changes(olds, news)).toEqual(["templateId"]);
});

test("a scale with no type listed saves the type known, else the default; bounds not listed are 0", async () => {
  const lb = await endpoint("balanced", { type: "LB" });
  await dialect.scale({ ...lb, type: null } as never, "LB", { min: 0, max: 1 });
  expect(await live(lb.id)).toMatchObject({ type: "LB", workersMax: 1 });
  await expect(dialect.scale({ ...lb, type: null } as never, undefined, { min: 0, max: 2 })).rejects.toThrow(/type is fixed at creation \(this endpoint is LB\); create a new endpoint for QB/);
  expect(dialect.boundsOf({ ...lb, workersMin: null, workersMax: null } as never)).toEqual({ min: 0, max: 0 });
});

test("a rename and an update keep the type the platform answered", async () => {
  const lb = await endpoint("lb~creating", { type: "LB" });
  await dialect.rename(lb, { name: "lb", templateId: TPL, type: "QB" } as EndpointInputs);
  expect(await live(lb.id)).toMatchObject({ name: "lb", type: "LB" });
  const olds = dialect.outputs(await live(lb.id), noWait, "LB");
  await dialect.update(lb.id, olds, { name: "lb", gpuIds: "ADA_24", templateId: TPL, workersMin: 0, workersMax: 1 } as EndpointInputs, noWait);
  expect(await live(lb.id)).toMatchObject({ type: "LB", workersMax: 1 });
});

describe("the wait for workers, on a clock the emulator shares (each of the dialect's sleeps moves both)", () => {
  let emu2: Emulator;
  let client2: ComputePlatform;
  let tpl2: string;
  const QUOTAS = { minute: 100_000, hour: 1_000_000, day: 10_000_000 };
  // The emulator reads the clock it was started with; each test's clock is set into it.
  const shared = { clock: new FakeClock() };

  beforeAll(async () => {
    emu2 = await startEmulator({ port: 0, quotas: QUOTAS, clock: { now: () => shared.clock.now() }, timings: { provisioningMs: 10, startingMs: 60_000, drainMs: 10 } });
    client2 = new ComputePlatform({ apiKey: emu2.apiKey, apiUrl: emu2.url, serverlessUrl: emu2.url, pacing: false, maxRetries: 1 });
    tpl2 = await createServerlessTemplate(emu2.url, emu2.apiKey);
  });

  afterAll(async () => {
    await client2?.close();
    await emu2?.close();
  });

  /** A dialect on `clock`, reading every second at first, half again longer each read, at most every 10 s. */
  function on(clock: FakeClock, signal?: AbortSignal) {
    shared.clock = clock;
    const price = { __workerPrice: { tier: "ADA_24", usd: 0.5 } } as Partial<ReturnType<typeof localSettings>>;
    return new GraphqlDialect({ client: () => client2, clock, signal, pollIntervalMs: 1000, maxPollIntervalMs: 10_000, workerPrice: async () => price });
  }
  const warm = (name: string, workersMin = 1) => client2.endpoints.save({ name, gpuIds: "ADA_24", templateId: tpl2, workersMin, workersMax: 3, gpuCount: 2 });

  test("it reads through the shared poller, half again longer between reads up to 10 s, until workersMin workers run, and prices the outputs", async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const d = on(clock);
    const ep = await warm("warm");
    const out = await d.settle(ep, localSettings({ readyTimeoutSeconds: 300 }), "QB");
    expect(out).toMatchObject({ name: "warm", workersMin: 1, hourlyCost: { min: 1, max: 3 } });
    expect(clock.sleeps).toEqual([1000, 1500, 2250, 3375, 5062.5, 7593.75, 10_000, 10_000, 10_000, 10_000]);
  });

  test("a wait that runs out reads until its deadline and no more", async () => {
    const clock = new FakeClock(Date.UTC(2026, 1, 1));
    const d = on(clock);
    const ep = await warm("slow");
    const lists = emu2.counts().myself ?? 0;
    const err = await d.settle(ep, localSettings({ readyTimeoutSeconds: 5 }), "QB").catch((e) => e);
    expect(err).toBeInstanceOf(EndpointNotReadyError);
    expect(err.reasons).toEqual([expect.stringMatching(/^endpoint \S+ has 0 of 1 workers RUNNING after 5 s; it is kept in state/)]);
    // The last read comes an interval after the one before, past the deadline.
    expect(clock.sleeps).toEqual([1000, 1500, 2250, 1000]);
    expect(emu2.counts().myself).toBe(lists + 4);
  });

  test("with no worker to wait for, it answers at once, reading nothing", async () => {
    const clock = new FakeClock(Date.UTC(2026, 2, 1));
    const d = on(clock);
    const ep = await warm("cold", 0);
    const lists = emu2.counts().myself ?? 0;
    await expect(d.settle(ep, localSettings({}), "QB")).resolves.toMatchObject({ name: "cold", workersMin: 0 });
    expect(clock.sleeps).toEqual([]);
    expect(emu2.counts().myself ?? 0).toBe(lists);
  });

  test("an endpoint deleted during the wait is named as gone; the drain's read answers from the next list", async () => {
    let id = "";
    const clock = clockDoing(async () => {
      await client2.endpoints.save({ id, name: "doomed", gpuIds: "ADA_24", templateId: tpl2, workersMin: 0, workersMax: 0 });
      await client2.endpoints.delete(id);
    });
    clock.current = Date.UTC(2026, 3, 1);
    const d = on(clock);
    const ep = await warm("doomed");
    id = ep.id;
    const err = await d.settle(ep, localSettings({}), "QB").catch((e) => e);
    expect(err).toBeInstanceOf(EndpointNotReadyError);
    expect(err.reasons).toEqual([`endpoint ${ep.id} disappeared while waiting for its workers`]);
    const other = await warm("drained");
    const before = clock.sleeps.length;
    await expect(d.current(other.id, clock.now() + 60_000)).resolves.toMatchObject({ id: other.id, workersMin: 1 });
    expect(clock.sleeps.slice(before)).toEqual([1000]);
    await expect(d.current(ep.id, clock.now() + 60_000)).resolves.toBeUndefined();
  });

  test("a wait the engine cancels fails naming why; the dialect's own calls carry the signal", async () => {
    const ac = new AbortController();
    const clock = clockDoing(async () => ac.abort(new Error("the engine cancelled")));
    clock.current = Date.UTC(2026, 4, 1);
    const d = on(clock, ac.signal);
    const ep = await warm("cancelled");
    const err = await d.settle(ep, localSettings({}), "QB").catch((e) => e);
    expect(err).toBeInstanceOf(EndpointNotReadyError);
    expect(err.reasons).toEqual([`waiting for the workers of endpoint ${ep.id} failed: the engine cancelled`]);
    await expect(d.list()).rejects.toThrow("the engine cancelled");
    await expect(d.read(ep.id, undefined, localSettings({}))).rejects.toThrow("the engine cancelled");
  });
});
