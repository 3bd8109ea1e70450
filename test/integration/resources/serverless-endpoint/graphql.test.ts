/**
 * The GraphQL dialect (graphql.ts), called directly against the emulator over real HTTP, on a
 * platform that resets the fields a save leaves out: a scale and a rename send every other field
 * at its live value, so nothing but what they change changes; an update with nothing to save sends
 * none; an endpoint gone answers as gone; a wait that runs out keeps the endpoint's id; and which
 * listed endpoint a create's look-up takes for its own.
 */
import { ComputePlatform, type Endpoint } from "../../../../src/client";
import { type Emulator, startEmulator } from "../../../../src/emulator";
import { EndpointNotReadyError } from "../../../../src/resources/serverless-endpoint/dialect";
import { GraphqlDialect } from "../../../../src/resources/serverless-endpoint/graphql";
import { localSettings } from "../../../../src/resources/serverless-endpoint/plan";
import type { EndpointInputs, ServerlessEndpointOutputs } from "../../../../src/resources/serverless-endpoint/schema";
import { createServerlessTemplate } from "../../../helpers/emulator-fixtures";

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
