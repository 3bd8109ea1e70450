/**
 * The REST v2 dialect (rest.ts), through the ServerlessEndpoint provider with `api: "rest"`,
 * called directly against the emulator over real HTTP: what the plugin tests cannot stage. A
 * delete refused (409) because someone raised the workers between its scale-down and its DELETE
 * starts over; a move whose PATCH failed after
 * the endpoint got its own template takes that template up again on the next try, never making a
 * second one; a readiness wait that runs out keeps the endpoint with its id; an update after a
 * refresh keeps the record of the auto-name applied (the soak's outside rename that previewed same).
 */
import { ComputePlatform } from "../../../../src/client";
import { type Emulator, startEmulator } from "../../../../src/emulator";
import { EndpointNotReadyError, ServerlessEndpointProvider } from "../../../../src/resources/serverless-endpoint/provider";
import { type ServerlessEndpointOutputs } from "../../../../src/resources/serverless-endpoint/schema";
import { createServerlessTemplate } from "../../../helpers/emulator-fixtures";

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
