// Several accounts in one emulator, over HTTP: keys grouped by account at start, each account
// holding, listing, billing and rate-limiting only its own objects, and another account's id a
// 404 (not a 403: the id names nothing this key can see), on every service.
import { ComputePlatform, NotFoundError } from "../../../src/client";
import { type Emulator, startEmulator } from "../../../src/emulator";
import { TIMINGS } from "../../helpers/emulator-rest";

const TEAM = "cp_acct_team_4b1d9e";
const TEAM_READ = "cp_acct_team_ro_70c2aa";
const SHARED = "cp_acct_shared_e83f15";
const GPU = "NVIDIA GeForce RTX 4090";

let emu: Emulator;
const clients: ComputePlatform[] = [];
const as = (apiKey: string) => {
  const c = new ComputePlatform({ apiKey, apiUrl: emu.url, serverlessUrl: emu.url, pacing: false, maxRetries: 0 });
  clients.push(c);
  return c;
};
const status = async (key: string, method: string, path: string, body?: unknown) =>
  (await fetch(`${emu.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) })).status;

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    keys: [
      { key: TEAM, scopes: ["read", "write"], account: "team" },
      { key: TEAM_READ, scopes: ["read"], account: "team" },
      { key: SHARED, scopes: ["read", "write"], account: "shared", quotas: { minute: 40 } },
    ],
    quotas: { minute: 1000, hour: 100_000, day: 1_000_000 },
    timings: TIMINGS,
  });
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await emu?.close();
});

test("each account holds, lists and reads only its own objects; another account's id is a 404 on every service", async () => {
  const shared = as(SHARED);
  const team = as(TEAM);
  const volume = await shared.networkVolumes.create({ name: "models", size: 10, dataCenter: "EU-RO-1" });
  const registry = await shared.registries.create({ name: "ghcr", username: "bot", password: "pw" });
  const template = await shared.templates.create({ name: "worker", image: "w:1", serverless: true });
  const pod = await shared.pods.create({ name: "trainer", image: "t:1", gpu: { id: GPU } });
  const gql = await shared.endpoints.save({ name: "gql", gpuIds: "ADA_24", templateId: template.id, workersMin: 0, workersMax: 0 });
  const rest = await shared.serverless.create({ name: "rest", image: "r:1", gpu: { pools: ["AMPERE_24"] }, workers: { min: 0, max: 0 } });
  const mine = await team.pods.create({ name: "trainer", image: "t:1", gpu: { id: GPU } });

  // The team's keys (both of them) see the team's pod alone; the shared account sees its own.
  expect((await team.pods.list()).map((p) => p.id)).toEqual([mine.id]);
  expect((await as(TEAM_READ).pods.list()).map((p) => p.id)).toEqual([mine.id]);
  expect((await shared.pods.list()).map((p) => p.id)).toEqual([pod.id]);
  for (const list of [team.networkVolumes.list(), team.registries.list(), team.templates.list(), team.endpoints.list(), team.serverless.list()]) {
    expect(await list).toEqual([]);
  }

  // Another account's id, read, changed or deleted: 404, as for an id that never was.
  expect([
    await status(TEAM, "GET", `/v2/pods/${pod.id}`),
    await status(TEAM, "PATCH", `/v2/pods/${pod.id}`, { name: "mine-now" }),
    await status(TEAM, "DELETE", `/v2/pods/${pod.id}`),
    await status(TEAM, "GET", `/v2/network-volumes/${volume.id}`),
    await status(TEAM, "DELETE", `/v2/registries/${registry.id}`),
    await status(TEAM, "GET", `/v2/templates/${template.id}`),
    await status(TEAM, "GET", `/v2/serverless/${rest.id}`),
    await status(TEAM, "POST", `/v2/${rest.id}/run`, { input: {} }),
  ]).toEqual([404, 404, 404, 404, 404, 404, 404, 404]);
  await expect(team.endpoints.delete(gql.id)).rejects.toBeInstanceOf(NotFoundError);
  // Nor can the team's objects name the shared account's: a template, a volume, a registry.
  expect(await status(TEAM, "POST", "/v2/pods", { name: "x", image: "x:1", gpu: { id: GPU }, registry: registry.id })).toBe(400);
  await expect(team.endpoints.save({ name: "x", gpuIds: "ADA_24", templateId: template.id })).rejects.toThrow(/template/);
  // Untouched in its own account.
  expect((await shared.pods.get(pod.id)).name).toBe("trainer");
  expect(emu.state("shared").pods.map((p) => p.id)).toEqual([pod.id]);
  expect(emu.state("team").pods.map((p) => p.id)).toEqual([mine.id]);
  expect(emu.state().pods.map((p) => p.id)).toEqual([mine.id]);
  expect(() => emu.state("nobody")).toThrow("no account 'nobody' (accounts: team, shared)");
  // The request log names the account of each request.
  expect(new Set(emu.requestLog().map((e) => e.account))).toEqual(new Set(["team", "shared"]));
});

test("each account is billed for its own pods only", async () => {
  const [team, shared] = [as(TEAM), as(SHARED)];
  const [teamPods, sharedPods] = [(await team.pods.list()).map((p) => p.id), (await shared.pods.list()).map((p) => p.id)];
  const billed = async (c: ComputePlatform) => [...new Set((await c.billing.pods({ lastN: 1, bucketSize: "hour" })).records.map((r) => r.podId))].sort();
  // Each pod has run since the first test: each account's bill names its own, and only those.
  expect(await billed(team)).toEqual([...teamPods].sort());
  expect(await billed(shared)).toEqual([...sharedPods].sort());
});

test("one account's requests never count against another's quota", async () => {
  // The shared key's minute quota is 40: spend it all, then the team is still served.
  let last = 200;
  for (let i = 0; i < 60 && last !== 429; i++) last = await status(SHARED, "GET", "/v2/pods");
  expect(last).toBe(429);
  expect(await status(TEAM, "GET", "/v2/pods")).toBe(200);
});
