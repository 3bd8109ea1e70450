/**
 * The REST v2 dialect (rest.ts), through the ServerlessEndpoint provider with `api: "rest"`,
 * called directly against the emulator over real HTTP: what the plugin tests cannot stage. A
 * delete refused (409) because someone raised the workers between its scale-down and its DELETE
 * starts over; a move whose PATCH failed after
 * the endpoint got its own template takes that template up again on the next try, never making a
 * second one; a readiness wait that runs out keeps the endpoint with its id; an update after a
 * refresh keeps the record of the auto-name applied (the soak's outside rename that previewed same).
 */
import { ComputePlatform, type RestEndpoint, systemClock } from "../../../../src/client";
import { type Emulator, startEmulator } from "../../../../src/emulator";
import type { DialectContext } from "../../../../src/resources/serverless-endpoint/dialect";
import { type LocalSettings, WORKER_PRICE_KEY } from "../../../../src/resources/serverless-endpoint/plan";
import { EndpointNotReadyError, ServerlessEndpointProvider } from "../../../../src/resources/serverless-endpoint/provider";
import { RestDialect } from "../../../../src/resources/serverless-endpoint/rest";
import { type ServerlessEndpointOutputs } from "../../../../src/resources/serverless-endpoint/schema";
import { createServerlessTemplate } from "../../../helpers/emulator-fixtures";
import { FakeClock } from "../../../helpers/fake-clock";

let emu: Emulator;
let client: ComputePlatform;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, quotas: { minute: 100_000, hour: 1_000_000, day: 10_000_000 }, timings: { provisioningMs: 10, startingMs: 30, drainMs: 30 } });
  client = new ComputePlatform({ apiKey: emu.apiKey, apiUrl: emu.url, pacing: false, maxRetries: 1 });
});

afterAll(async () => {
  await client?.close();
  await emu?.close();
});

const provider = (c: ComputePlatform = client) => new ServerlessEndpointProvider({ client: () => c, pollIntervalMs: 5, maxPollIntervalMs: 20 });
const REST = { name: "rest-p", gpuIds: "ADA_24", api: "rest", container: { image: "w:1" } };

/** `c` with some methods of one of its parts replaced: what another program, or a failure, does at that call. */
function replacing(c: ComputePlatform, part: "serverless" | "endpoints", methods: Record<string, (...args: any[]) => Promise<unknown>>): ComputePlatform {
  const out = Object.create(c) as ComputePlatform;
  Object.defineProperty(out, part, {
    value: new Proxy(c[part], {
      get(target, prop) {
        if (typeof prop === "string" && Object.hasOwn(methods, prop)) return methods[prop];
        const v = Reflect.get(target, prop);
        return typeof v === "function" ? v.bind(target) : v;
      },
    }),
  });
  return out;
}

async function checked(p: ServerlessEndpointProvider, news: Record<string, unknown>, olds: Record<string, unknown> = {}) {
  const r = await p.check(olds, news);
  expect(r.failures ?? []).toEqual([]);
  return r.inputs!;
}

test("a delete refused because the workers were raised again starts over, and finishes", async () => {
  const p = provider();
  const made = await p.create(await checked(p, { ...REST, workersMin: 0, workersMax: 2 }));
  // Someone raises the workers right after the provider's scale-down, once.
  let raised = false;
  const racing = Object.create(client) as ComputePlatform;
  Object.defineProperty(racing, "serverless", {
    value: new Proxy(client.serverless, {
      get(target, prop) {
        if (prop === "delete" && !raised) {
          return async (id: string, opts?: object) => {
            raised = true;
            await client.serverless.update(id, { workers: { max: 1 } });
            return target.delete(id, opts);
          };
        }
        const v = Reflect.get(target, prop);
        return typeof v === "function" ? v.bind(target) : v;
      },
    }),
  });
  await provider(racing).delete(made.id, made.outs as ServerlessEndpointOutputs);
  expect(raised).toBe(true);
  const deletes = emu.requestLog().filter((e) => e.op === "deleteEndpoint" && e.path === `/v2/serverless/${made.id}`);
  expect(deletes.map((e) => e.status)).toEqual([409, 204]);
  expect(emu.state().endpoints.find((e: any) => e.id === made.id)).toBeUndefined();
});

test("a move whose PATCH failed takes its own template up again on the next try", async () => {
  const p = provider();
  const tpl = await createServerlessTemplate(emu.url, emu.apiKey, { image: "shared:1" });
  const graphql = await checked(p, { name: "mover", gpuIds: "ADA_24", templateId: tpl, workersMax: 1 });
  const made = await p.create(graphql);
  const olds = made.outs as ServerlessEndpointOutputs;

  // The move asks for a volume that does not exist: the PATCH fails after the rebinding.
  const move = await checked(p, { name: "mover", gpuIds: "ADA_24", api: "rest", container: { image: "own:1" }, workersMax: 1, networkVolumeId: "nv-missing" }, graphql);
  await expect(p.update(made.id, olds, move)).rejects.toThrow(/network volume 'nv-missing' does not exist/);
  const own = (emu.state().endpoints.find((e: any) => e.id === made.id) as any).templateId;
  expect(own).not.toBe(tpl);
  const templatesAfterFailure = emu.state().templates.length;

  // The state still says GraphQL (nothing was recorded): the next up moves again.
  const fixed = await checked(p, { name: "mover", gpuIds: "ADA_24", api: "rest", container: { image: "own:2" }, workersMax: 1 }, graphql);
  const from = emu.requestLog().length;
  const outs = (await p.update(made.id, olds, fixed)).outs!;
  // The container went to its own template: the PATCH after it has nothing left to send.
  expect(emu.requestLog().slice(from).filter((e) => e.op === "updateEndpoint")).toEqual([]);
  expect(outs).toMatchObject({ api: "rest", container: { image: "own:2" } });
  expect(emu.state().templates.length).toBe(templatesAfterFailure);
  expect((emu.state().endpoints.find((e: any) => e.id === made.id) as any).templateId).toBe(own);
  expect(emu.state().templates.find((t) => t.id === tpl)?.image).toBe("shared:1");

  await p.delete(made.id, outs);
  expect(emu.state().templates.find((t) => t.id === own)).toBeUndefined();
});

test("a readiness wait that runs out keeps the endpoint with its id", async () => {
  const slow = await startEmulator({ port: 0, timings: { provisioningMs: 10, startingMs: 3_600_000, drainMs: 30 } });
  const c = new ComputePlatform({ apiKey: slow.apiKey, apiUrl: slow.url, pacing: false, maxRetries: 1 });
  try {
    const p = provider(c);
    const err = await p.create(await checked(p, { ...REST, workersMin: 1, workersMax: 1, readyTimeoutSeconds: 1 })).catch((e) => e);
    expect(err).toBeInstanceOf(EndpointNotReadyError);
    expect(err.reasons[0]).toMatch(/0 of 1 workers IDLE or RUNNING after 1 s/);
    expect(err.properties).toMatchObject({ api: "rest", pods: [{ desiredStatus: "INITIALIZING" }] });
    expect(slow.state().endpoints.map((e: any) => e.id)).toEqual([err.id]);
  } finally {
    await c.close();
    await slow.close();
  }
});

test("an auto-named endpoint updated after a refresh keeps the record of its name, so an outside rename shows", async () => {
  const p = provider();
  // No name: the check settles on the auto-name of the owner token.
  const news = { gpuIds: "ADA_24", api: "rest", container: { image: "w:1" }, __logicalName: "renamed-outside" };
  const made = await p.create(await checked(p, news));
  const name = made.outs!.name;
  expect(name).toMatch(/^renamed-outside-[0-9a-f]{7}$/);
  // A refresh: the inputs it reports carry no owner token. A preview's diff in the same process
  // records the endpoint as the one a replacement would follow, so the next check derives
  // another token from it, of which the kept name is not the auto-name (as after a replacement
  // and a refresh, in separate processes).
  const refreshed = await p.read(made.id, made.outs);
  const olds = refreshed.inputs as unknown as Record<string, unknown>;
  expect(olds.name).toBe(name);
  await p.diff(made.id, refreshed.props!, await checked(p, news, olds));
  const changed = await checked(p, { ...news, container: { image: "w:2" } }, olds);
  expect(changed.name).toBe(name);
  const updated = await p.update(made.id, refreshed.props!, changed);
  // Renamed outside Pulumi: the refresh still reports the name applied, so the program's check
  // settles on it and the next preview renames it back.
  await client.serverless.update(made.id, { name: "renamed-by-hand" });
  const again = await p.read(made.id, updated.outs as ServerlessEndpointOutputs);
  expect({ live: again.props!.name, input: again.inputs!.name }).toEqual({ live: "renamed-by-hand", input: name });
  await p.delete(made.id, again.props!);
});

describe("the REST dialect's own steps, called directly", () => {
  const endpointOf = (id: string) => emu.state().endpoints.find((e: any) => e.id === id) as any;
  const restDialect = (c: ComputePlatform = client, extra: Partial<DialectContext> = {}) =>
    new RestDialect({ client: () => c, clock: systemClock, pollIntervalMs: 5, maxPollIntervalMs: 20, workerPrice: async () => ({}), ...extra });
  const settings = (over: Partial<LocalSettings> = {}) => ({ waitForWorkers: true, readyTimeoutSeconds: 60, ...over }) as LocalSettings;
  const ops = (from: number, op: string) => emu.requestLog().slice(from).filter((e) => e.op === op);

  test("create sends the body under the name it is given (the pending name); isOurs knows it by that name and the image", async () => {
    const p = provider();
    const inputs = await checked(p, { ...REST, name: "direct", workersMax: 0 });
    const d = restDialect();
    const made = await d.create(inputs, "direct~creating", {});
    expect(endpointOf(made.id)).toMatchObject({ name: "direct~creating", workersMax: 0 });
    const ours = d.isOurs(inputs, "direct~creating");
    expect([ours(made), ours({ ...made, name: "direct" }), ours({ ...made, image: "other:1" })]).toEqual([true, false, false]);
    expect(d.isOurs({ ...inputs, container: undefined }, "direct~creating")(made)).toBe(false);
    expect((await d.list()).map((e) => e.id)).toContain(made.id);
    expect((await d.sharedList().fresh()).map((e) => e.id)).toContain(made.id);
    expect(d.boundsOf({ ...made, workers: { min: 2, max: 5 } })).toEqual({ min: 2, max: 5 });
    await d.remove(made.id);
    expect(endpointOf(made.id)).toBeUndefined();
    expect(await d.current(made.id)).toBeUndefined();
  });

  test("its type as listed: LOAD_BALANCING is LB, anything else QB", () => {
    const d = restDialect();
    expect([d.typeOf({ type: "LOAD_BALANCING" } as RestEndpoint), d.typeOf({ type: "QUEUE_BASED" } as RestEndpoint)]).toEqual(["LB", "QB"]);
  });

  test("settle without waitForWorkers reads no workers; with it, one list per tick, the pause growing by half to its ceiling, until the deadline", async () => {
    // A poll per tick for two seconds of the fake clock: more requests than the default minute's quota.
    const slow = await startEmulator({ port: 0, quotas: { minute: 100_000, hour: 1_000_000, day: 10_000_000 }, timings: { provisioningMs: 10, startingMs: 3_600_000, drainMs: 30 } });
    const c = new ComputePlatform({ apiKey: slow.apiKey, apiUrl: slow.url, pacing: false, maxRetries: 0 });
    try {
      const ep = await c.serverless.create({ name: "slow", image: "w:1", gpu: { pools: ["ADA_24", "AMPERE_24"] }, workers: { min: 1, max: 1 } });
      const priced: (string | undefined)[] = [];
      const clock = new FakeClock();
      const d = restDialect(c, { clock, workerPrice: async (gpuIds) => (priced.push(gpuIds), {}) });
      const before = slow.requestLog().length;
      const outs = await d.settle(ep, settings({ waitForWorkers: false }));
      expect(outs).toMatchObject({ name: "slow", api: "rest", pods: [] });
      expect(slow.requestLog().slice(before).filter((e) => e.op === "listEndpointWorkers")).toEqual([]);
      expect(priced).toEqual(["ADA_24,AMPERE_24"]);
      await d.settle({ ...ep, gpu: undefined as never }, settings({ waitForWorkers: false }));
      expect(priced).toEqual(["ADA_24,AMPERE_24", ""]);

      const err = await d.settle(ep, settings({ readyTimeoutSeconds: 2 })).catch((e) => e);
      expect(err).toBeInstanceOf(EndpointNotReadyError);
      expect(err.reasons).toEqual([
        `endpoint ${ep.id} has 0 of 1 workers IDLE or RUNNING after 2 s; it is kept in state and the next \`pulumi up\` waits again (raise readyTimeoutSeconds, or set waitForWorkers: false)`,
      ]);
      expect(err.properties).toMatchObject({ name: "slow", pods: [{ desiredStatus: "INITIALIZING" }] });
      // 5, 7.5, 11.25, 16.875, then 20 (the ceiling) until the two seconds are over.
      expect(clock.sleeps.slice(0, 6)).toEqual([5, 7.5, 11.25, 16.875, 20, 20]);
      expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(2000);
      expect(slow.requestLog().filter((e) => e.op === "listEndpointWorkers").length).toBe(clock.sleeps.length + 1);
    } finally {
      await c.close();
      await slow.close();
    }
  });

  test("settle: an endpoint gone while it waits, or a workers list that fails, each says so with the endpoint kept", async () => {
    const p = provider();
    const made = await p.create(await checked(p, { ...REST, name: "settled", workersMin: 0, workersMax: 1 }));
    const ep = await client.serverless.get(made.id);
    const wanting = { ...ep, workers: { min: 1, max: 1 } };
    const failing = replacing(client, "serverless", { workers: async () => Promise.reject(new Error("the workers list broke")) });
    const broke = await restDialect(failing).settle(wanting, settings()).catch((e) => e);
    expect(broke).toBeInstanceOf(EndpointNotReadyError);
    expect([broke.id, broke.reasons]).toEqual([made.id, [`waiting for the workers of endpoint ${made.id} failed: the workers list broke`]]);
    // Something thrown that is not an Error is said as it is.
    const odd = await restDialect(replacing(client, "serverless", { workers: async () => Promise.reject("a bare string") })).settle(wanting, settings()).catch((e) => e);
    expect(odd.reasons).toEqual([`waiting for the workers of endpoint ${made.id} failed: a bare string`]);
    await p.delete(made.id, made.outs as ServerlessEndpointOutputs);
    const gone = await restDialect().settle(wanting, settings()).catch((e) => e);
    expect(gone).toBeInstanceOf(EndpointNotReadyError);
    expect([gone.id, gone.reasons]).toEqual([made.id, [`endpoint ${made.id} disappeared while waiting for its workers`]]);
  });

  test("an update that changes nothing reads the endpoint and sends no PATCH; one that changes a field sends only it", async () => {
    const p = provider();
    const inputs = await checked(p, { ...REST, name: "sparse", workersMax: 1 });
    const made = await p.create(inputs);
    const olds = made.outs as ServerlessEndpointOutputs;
    const d = restDialect();
    let from = emu.requestLog().length;
    const same = await d.update(made.id, olds, inputs, settings());
    expect(same).toMatchObject({ name: "sparse", workersMax: 1 });
    expect(ops(from, "updateEndpoint")).toEqual([]);
    expect(ops(from, "getEndpoint").length).toBe(1);
    // Managed over REST already: no move (no GraphQL read, no template of its own made or changed).
    expect(emu.requestLog().slice(from).filter((e) => e.path === "/graphql" || e.path.startsWith("/v2/templates"))).toEqual([]);
    from = emu.requestLog().length;
    const changed = await checked(p, { ...REST, name: "sparse", workersMax: 2 }, inputs as Record<string, unknown>);
    expect(d.changes(olds, changed)).toEqual(["workersMax"]);
    expect(await d.update(made.id, olds, changed, settings())).toMatchObject({ workersMax: 2 });
    expect(ops(from, "updateEndpoint").length).toBe(1);
    const refused = await checked(p, { ...REST, name: "sparse", workersMax: 2, networkVolumeId: "nv-missing" }, inputs as Record<string, unknown>);
    const err = await d.update(made.id, olds, refused, settings()).catch((e) => e);
    expect(err).not.toBeInstanceOf(EndpointNotReadyError);
    expect(err.message).toMatch(/network volume 'nv-missing' does not exist/);
    await p.delete(made.id, olds);
  });

  test("an update or a move of an endpoint gone from the platform says so, naming it", async () => {
    const p = provider();
    const restIn = await checked(p, { ...REST, name: "vanishing", workersMax: 0 });
    const made = await p.create(restIn);
    await client.serverless.delete(made.id);
    const gone = (name: string, id: string) =>
      `ServerlessEndpoint ${JSON.stringify(name)} (${id}) no longer exists on the platform; run \`pulumi refresh\` to forget it, then \`pulumi up\` to make a new one`;
    const changed = await checked(p, { ...REST, name: "vanishing", workersMax: 1 }, restIn as Record<string, unknown>);
    await expect(restDialect().update(made.id, made.outs as ServerlessEndpointOutputs, changed, settings())).rejects.toThrow(gone("vanishing", made.id));
    expect(await restDialect().read(made.id, undefined, settings())).toBeUndefined();

    const tpl = await createServerlessTemplate(emu.url, emu.apiKey, { image: "shared:1" });
    const graphqlIn = await checked(p, { name: "vanishing-gql", gpuIds: "ADA_24", templateId: tpl, workersMax: 0 });
    const gql = await p.create(graphqlIn);
    await client.endpoints.delete(gql.id);
    const move = await checked(p, { name: "vanishing-gql", gpuIds: "ADA_24", api: "rest", container: { image: "own:1" }, workersMax: 0 }, graphqlIn as Record<string, unknown>);
    const templates = emu.state().templates.length;
    await expect(restDialect().update(gql.id, gql.outs as ServerlessEndpointOutputs, move, settings())).rejects.toThrow(gone("vanishing-gql", gql.id));
    expect(emu.state().templates.length).toBe(templates);
  });

  test("a move whose binding fails deletes the template it made for it, and passes the error on", async () => {
    const p = provider();
    const tpl = await createServerlessTemplate(emu.url, emu.apiKey, { image: "shared:1" });
    const graphqlIn = await checked(p, { name: "unbound", gpuIds: "ADA_24", templateId: tpl, workersMax: 1, idleTimeout: 7 });
    const made = await p.create(graphqlIn);
    const saved: Record<string, unknown>[] = [];
    const refusing = replacing(client, "endpoints", { save: async (input: Record<string, unknown>) => (saved.push(input), Promise.reject(new Error("the save broke"))) });
    const templates = emu.state().templates.map((t) => t.id);
    const move = await checked(p, { name: "unbound", gpuIds: "ADA_24", api: "rest", container: { image: "own:1" }, workersMax: 1, idleTimeout: 7 }, graphqlIn as Record<string, unknown>);
    await expect(restDialect(refusing).update(made.id, made.outs as ServerlessEndpointOutputs, move, settings())).rejects.toThrow(/^the save broke$/);
    expect(emu.state().templates.map((t) => t.id)).toEqual(templates);
    expect(endpointOf(made.id).templateId).toBe(tpl);
    // The binding carries every field the endpoint has, so nothing it had is lost to the move.
    expect(saved).toEqual([
      expect.objectContaining({ id: made.id, name: "unbound", gpuIds: "ADA_24", type: "QB", workersMax: 1, idleTimeout: 7, templateId: expect.not.stringMatching(new RegExp(`^${tpl}$`)) }),
    ]);
    expect(Object.values(saved[0]!)).not.toContain(null);
    expect(Object.values(saved[0]!)).not.toContain(undefined);

    // Gone between the move's read and its binding: said so, and the template made for it deleted too.
    const vanishing = replacing(client, "endpoints", {
      save: async (input: Record<string, unknown>) => {
        await client.serverless.update(made.id, { workers: { min: 0, max: 0 } });
        await client.endpoints.delete(made.id);
        return client.endpoints.save(input as never);
      },
    });
    await expect(restDialect(vanishing).update(made.id, made.outs as ServerlessEndpointOutputs, move, settings())).rejects.toThrow(/^ServerlessEndpoint "unbound" \(\S+\) no longer exists on the platform/);
    expect(emu.state().templates.map((t) => t.id)).toEqual(templates);
  });

  test("a read or a move whose first read fails otherwise than gone passes the error on", async () => {
    const broken = replacing(client, "serverless", { get: async () => Promise.reject(new Error("the get broke")) });
    await expect(restDialect(broken).read("any", undefined, settings())).rejects.toThrow(/^the get broke$/);
    const p = provider();
    const tpl = await createServerlessTemplate(emu.url, emu.apiKey, { image: "shared:1" });
    const graphqlIn = await checked(p, { name: "unread", gpuIds: "ADA_24", templateId: tpl, workersMax: 0 });
    const made = await p.create(graphqlIn);
    const move = await checked(p, { name: "unread", gpuIds: "ADA_24", api: "rest", container: { image: "own:1" }, workersMax: 0 }, graphqlIn as Record<string, unknown>);
    const unreadable = replacing(client, "endpoints", { get: async () => Promise.reject(new Error("the endpoint read broke")) });
    await expect(restDialect(unreadable).update(made.id, made.outs as ServerlessEndpointOutputs, move, settings())).rejects.toThrow(/^the endpoint read broke$/);
  });

  test("a create carries its options: a cancelled one sends nothing", async () => {
    const p = provider();
    const inputs = await checked(p, { ...REST, name: "never-made", workersMax: 0 });
    const from = emu.requestLog().length;
    await expect(restDialect().create(inputs, "never-made", { signal: AbortSignal.abort(new Error("cancelled")) })).rejects.toThrow();
    expect(ops(from, "createEndpoint")).toEqual([]);
  });

  test("a move's PATCH that fails after the binding keeps the endpoint, recorded as moved", async () => {
    const p = provider();
    const tpl = await createServerlessTemplate(emu.url, emu.apiKey, { image: "shared:1" });
    const graphqlIn = await checked(p, { name: "half-moved", gpuIds: "ADA_24", templateId: tpl, workersMax: 1 });
    const made = await p.create(graphqlIn);
    const move = await checked(p, { name: "half-moved", gpuIds: "ADA_24", api: "rest", container: { image: "own:1" }, workersMax: 1, networkVolumeId: "nv-missing" }, graphqlIn as Record<string, unknown>);
    const err = await restDialect().update(made.id, made.outs as ServerlessEndpointOutputs, move, settings()).catch((e) => e);
    expect(err).toBeInstanceOf(EndpointNotReadyError);
    expect(err.id).toBe(made.id);
    // The PATCH's own error, as the client says it.
    const patch = await client.serverless.update(made.id, { networkVolumes: ["nv-missing"] }).catch((e) => e);
    expect(patch.message).toMatch(/network volume 'nv-missing' does not exist/);
    expect(err.reasons).toEqual([`endpoint ${made.id} was moved to REST (its own template bound), but updating it failed: ${patch.message}`]);
    expect(err.properties).toMatchObject({ api: "rest", templateId: null, dataCenterIds: [], container: { image: "own:1", args: "", ports: [], env: {}, registry: null } });
    // Its own template is named after the endpoint, and a GraphQL update of it is refused no more: the move is made.
    expect(emu.state().templates.find((t) => t.id === endpointOf(made.id).templateId)?.name).toBe(`half-moved__template__${made.id}`);
  });

  test("a move from GraphQL rolls the workers (the endpoint binds a template of its own); a REST update that rolls nothing does not", async () => {
    const p = provider();
    const d = restDialect();
    const restIn = await checked(p, { ...REST, name: "roller", workersMax: 0 });
    const made = await p.create(restIn);
    const renamed = await checked(p, { ...REST, name: "roller-2", workersMax: 0 }, restIn as Record<string, unknown>);
    expect(d.rolls(made.outs!, renamed)).toEqual([]);
    const tpl = await createServerlessTemplate(emu.url, emu.apiKey, { image: "w:1" });
    const graphqlIn = await checked(p, { name: "roller-gql", gpuIds: "ADA_24", templateId: tpl, workersMax: 0 });
    const gql = await p.create(graphqlIn);
    const move = await checked(p, { name: "roller-gql", gpuIds: "ADA_24", api: "rest", container: { image: "w:1" }, workersMax: 0 }, graphqlIn as Record<string, unknown>);
    expect(d.rolls(gql.outs!, move)).toContain("template.id");
    await p.delete(made.id, made.outs!);
  });

  test("an endpoint adopted over REST must not share its template: the refusal names the others and the way out", async () => {
    const tpl = await createServerlessTemplate(emu.url, emu.apiKey, { image: "shared:1" });
    const p = provider();
    const a = await p.create(await checked(p, { name: "share-a", gpuIds: "ADA_24", templateId: tpl, workersMax: 0 }));
    expect(await restDialect().adoptRefusal(a.id)).toBeUndefined();
    const b = await p.create(await checked(p, { name: "share-b", gpuIds: "ADA_24", templateId: tpl, workersMax: 0 }));
    const c = await p.create(await checked(p, { name: "share-c", gpuIds: "ADA_24", templateId: tpl, workersMax: 0 }));
    const elsewhere = await createServerlessTemplate(emu.url, emu.apiKey, { image: "other:1" });
    await p.create(await checked(p, { name: "share-d", gpuIds: "ADA_24", templateId: elsewhere, workersMax: 0 }));
    // One GraphQL list of the one field it needs.
    const asked: unknown[] = [];
    const listing = replacing(client, "endpoints", { list: async (opts: any) => (asked.push(opts), client.endpoints.list(opts)) });
    expect(await restDialect(listing).adoptRefusal(a.id)).toBe(
      `shares its template ${tpl} with endpoint(s) ${b.id}, ${c.id}: over REST a container change would change them too. Adopt it over GraphQL (api left out, templateId: "${tpl}")`,
    );
    expect(asked).toEqual([{ fields: ["templateId"] }]);
    // An id no endpoint has shares nothing.
    expect(await restDialect().adoptRefusal("no-such-endpoint")).toBeUndefined();
  });

  test("a read: the endpoint with its workers as pods and one worker's price, and the inputs a refresh reports; the outputs of one as listed have no pods", async () => {
    const p = provider();
    const made = await p.create(await checked(p, { ...REST, name: "readable", gpuIds: "ADA_24,AMPERE_24", workersMin: 1, workersMax: 1 }));
    const priced: (string | undefined)[] = [];
    const price = { [WORKER_PRICE_KEY]: { tier: "ADA_24", usd: 0.5 } };
    const d = restDialect(client, { workerPrice: async (gpuIds) => (priced.push(gpuIds), price) });
    const r = await d.read(made.id, undefined, settings());
    expect(r!.props).toMatchObject({ name: "readable", api: "rest", pods: [{ desiredStatus: "RUNNING" }], ...price });
    expect(r!.inputs).toMatchObject({ name: "readable", api: "rest", container: { image: "w:1" }, workersMin: 1 });
    expect(priced).toEqual(["ADA_24,AMPERE_24"]);
    // The workers list gone meanwhile (a 404 of its own): the endpoint reads with none.
    const noWorkers = replacing(client, "serverless", { workers: async () => client.serverless.workers("no-such-endpoint") });
    expect((await restDialect(noWorkers).read(made.id, undefined, settings()))!.props).toMatchObject({ name: "readable", pods: [] });
    const listed = (await d.list()).find((e) => e.id === made.id)!;
    expect(d.outputs(listed, settings())).toMatchObject({ name: "readable", api: "rest", pods: [] });
    await p.delete(made.id, made.outs as ServerlessEndpointOutputs);
  });

  test("a rename sends the name alone; an update tells the shared list that the lists before it no longer answer for that endpoint", async () => {
    const p = provider();
    const inputs = await checked(p, { ...REST, name: "fenced", workersMax: 0 });
    const made = await p.create(inputs);
    const d = restDialect();
    const ep = await client.serverless.get(made.id);
    await d.rename(ep, { ...inputs, name: "fenced-2", workersMax: 3 });
    expect(endpointOf(made.id)).toMatchObject({ name: "fenced-2", workersMax: 0 });
    // The key is the shared reads' own (lifecycle/shared-reads.ts): `read:<id>`.
    const list = d.sharedList();
    await list.fresh();
    expect(list.answers(`read:${made.id}`)).toBe(true);
    await d.update(made.id, made.outs as ServerlessEndpointOutputs, inputs, settings());
    expect(list.answers(`read:${made.id}`)).toBe(false);
    await p.delete(made.id, made.outs as ServerlessEndpointOutputs);
  });

  test("every request carries the provider's signal: a cancelled one sends nothing", async () => {
    const controller = new AbortController();
    controller.abort(new Error("cancelled"));
    const d = restDialect(client, { signal: controller.signal });
    await expect(d.list()).rejects.toThrow();
    await expect(restDialect().list()).resolves.toEqual(expect.any(Array));
  });
});
