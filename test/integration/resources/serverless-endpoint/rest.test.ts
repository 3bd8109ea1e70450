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
import type { LocalSettings } from "../../../../src/resources/serverless-endpoint/plan";
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
  const outs = (await p.update(made.id, olds, fixed)).outs!;
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
    const slow = await startEmulator({ port: 0, timings: { provisioningMs: 10, startingMs: 3_600_000, drainMs: 30 } });
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

      const err = await d.settle(ep, settings({ readyTimeoutSeconds: 1 })).catch((e) => e);
      expect(err).toBeInstanceOf(EndpointNotReadyError);
      expect(err.reasons).toEqual([
        `endpoint ${ep.id} has 0 of 1 workers IDLE or RUNNING after 1 s; it is kept in state and the next \`pulumi up\` waits again (raise readyTimeoutSeconds, or set waitForWorkers: false)`,
      ]);
      expect(err.properties).toMatchObject({ name: "slow", pods: [{ desiredStatus: "INITIALIZING" }] });
      // 5, 7.5, 11.25, 16.875, then 20 (the ceiling) until the second is over.
      expect(clock.sleeps.slice(0, 6)).toEqual([5, 7.5, 11.25, 16.875, 20, 20]);
      expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(1000);
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
    const failing = Object.create(client) as ComputePlatform;
    Object.defineProperty(failing, "serverless", {
      value: new Proxy(client.serverless, {
        get(target, prop) {
          if (prop === "workers") return async () => Promise.reject(new Error("the workers list broke"));
          const v = Reflect.get(target, prop);
          return typeof v === "function" ? v.bind(target) : v;
        },
      }),
    });
    const broke = await restDialect(failing).settle(wanting, settings()).catch((e) => e);
    expect(broke).toBeInstanceOf(EndpointNotReadyError);
    expect([broke.id, broke.reasons]).toEqual([made.id, [`waiting for the workers of endpoint ${made.id} failed: the workers list broke`]]);
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
    from = emu.requestLog().length;
    const changed = await checked(p, { ...REST, name: "sparse", workersMax: 2 }, inputs as Record<string, unknown>);
    expect(d.changes(olds, changed)).toEqual(["workersMax"]);
    expect(await d.update(made.id, olds, changed, settings())).toMatchObject({ workersMax: 2 });
    expect(ops(from, "updateEndpoint").length).toBe(1);
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
    const refusing = Object.create(client) as ComputePlatform;
    Object.defineProperty(refusing, "endpoints", {
      value: new Proxy(client.endpoints, {
        get(target, prop) {
          if (prop === "save") return async (input: Record<string, unknown>) => (saved.push(input), Promise.reject(new Error("the save broke")));
          const v = Reflect.get(target, prop);
          return typeof v === "function" ? v.bind(target) : v;
        },
      }),
    });
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
    expect(err.reasons).toEqual([expect.stringMatching(new RegExp(`^endpoint ${made.id} was moved to REST \\(its own template bound\\), but updating it failed: .*network volume 'nv-missing' does not exist`))]);
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
    expect(await restDialect().adoptRefusal(a.id)).toBe(
      `shares its template ${tpl} with endpoint(s) ${b.id}: over REST a container change would change them too. Adopt it over GraphQL (api left out, templateId: "${tpl}")`,
    );
    // An id no endpoint has shares nothing.
    expect(await restDialect().adoptRefusal("no-such-endpoint")).toBeUndefined();
  });

  test("every request carries the provider's signal: a cancelled one sends nothing", async () => {
    const controller = new AbortController();
    controller.abort(new Error("cancelled"));
    const d = restDialect(client, { signal: controller.signal });
    await expect(d.list()).rejects.toThrow();
    await expect(restDialect().list()).resolves.toEqual(expect.any(Array));
  });
});
