/**
 * The ServerlessEndpoint provider's writes held to the budgets (cost/guard.ts), called directly
 * against the emulator over real HTTP: a create whose workers would take the account over its
 * budget sends no create, an update raising workersMax over it sends no save and leaves the
 * endpoint as it was, and one that lowers them passes; the account's pods are listed once for them all.
 */
import { ComputePlatform } from "../../../../src/client";
import { type Emulator, startEmulator } from "../../../../src/emulator";
import { accountView } from "../../../../src/resources/cost/account";
import { ACCOUNT_BUDGET_ENV } from "../../../../src/resources/engine/settings";
import { ServerlessEndpointProvider } from "../../../../src/resources/serverless-endpoint/provider";
import type { ServerlessEndpointOutputs } from "../../../../src/resources/serverless-endpoint/schema";

let emu: Emulator;
let client: ComputePlatform;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, quotas: { minute: 100_000, hour: 1_000_000, day: 10_000_000 }, timings: { provisioningMs: 10, startingMs: 30, drainMs: 30 } });
  client = new ComputePlatform({ apiKey: emu.apiKey, apiUrl: emu.url, pacing: false, maxRetries: 1 });
  // ADA_24 workers cost $0.69/h each: the account may run 4 of them at most.
  process.env[ACCOUNT_BUDGET_ENV] = "3";
});

afterAll(async () => {
  delete process.env[ACCOUNT_BUDGET_ENV];
  await client?.close();
  await emu?.close();
});

test("an endpoint's create and update raising its workers over the account's budget send nothing; lowering them passes", async () => {
  const p = new ServerlessEndpointProvider({ client: () => client, pollIntervalMs: 5, maxPollIntervalMs: 20 });
  const inputs = async (news: Record<string, unknown>, olds: Record<string, unknown> = {}) => (await p.check(olds, { name: "api", gpuIds: "ADA_24", api: "rest", container: { image: "w:1" }, ...news })).inputs!;
  accountView(() => client).renew();
  const from = emu.requestLog().length;
  const writes = () => emu.requestLog().slice(from).filter((e) => e.method !== "GET").map((e) => e.op);

  await expect(p.create(await inputs({ workersMin: 0, workersMax: 5 }))).rejects.toThrow(
    /^endpoint api: create \(0 to 5 workers of 1 ADA_24 GPU\) \(\$0\.00-\$3\.45\/h\) would take the account to \$0\.00-\$3\.45\/h, over its budget \$3\.00\/h \(COMPUTEPLATFORM_ACCOUNT_MAX_HOURLY_COST\)/,
  );
  expect(writes()).toEqual([]);

  const made = await p.create(await inputs({ workersMin: 0, workersMax: 2 }));
  const olds = made.outs as ServerlessEndpointOutputs;
  const before = writes().length;
  await expect(p.update(made.id, olds, await inputs({ workersMin: 0, workersMax: 6 }, olds as never))).rejects.toThrow(/update \(0 to 6 workers of 1 ADA_24 GPU\).*over its budget \$3\.00\/h/);
  expect(writes().length).toBe(before);
  expect((await client.serverless.get(made.id)).workers).toEqual({ min: 0, max: 2 });

  await p.update(made.id, olds, await inputs({ workersMin: 0, workersMax: 1 }, olds as never));
  expect((await client.serverless.get(made.id)).workers).toEqual({ min: 0, max: 1 });
  // The account's pods listed once for the three writes held to it.
  const lists = emu.requestLog().slice(from).filter((e) => e.method === "GET" && (e.path === "/v2/serverless" || e.path === "/v2/pods"));
  expect(lists.map((e) => e.path).filter((path) => path === "/v2/pods")).toHaveLength(1);
  await p.delete(made.id, (await p.read(made.id, olds)).props as ServerlessEndpointOutputs);
});
