// Accounts of 460 endpoints, over the platform's GraphQL query-cost limit for one read of every
// field (issue 50), on the emulator's own cost function: the client's list and the
// ServerlessEndpoint provider's create, refresh and delete read the account in documents of fewer
// fields. These are about the account's size (each seeds 460 endpoints and reads them whole, at
// a load average of 20 on 2 cores 118 s for the client's alone), so they run in test:faults; the
// rule itself (refused once, then two documents, later reads two at once) is in npm test against
// a scripted platform: test/integration/client/endpoints.test.ts.
import { ComputePlatform, PacingRegistry } from "../../src/client";
import { type Emulator, startEmulator } from "../../src/emulator";
import { ServerlessEndpointProvider } from "../../src/resources/serverless-endpoint/provider";
import { createServerlessTemplate, graphqlAnswers, seedEndpoints } from "../helpers/emulator-fixtures";
import { FULL, start } from "../helpers/emulator-rest";

const STARTING_MS = 60;
const DRAIN_MS = 120;
const QUOTAS = { minute: 100_000, hour: 1_000_000, day: 10_000_000 };
/**
 * A bound for a hung test, not a speed target: the provider's test took over 90 s at a load
 * average of 24 on 2 cores (460 endpoints read whole, every answer checked against the contract).
 */
const BOUND_MS = 300_000;

describe("the client: an account of 460 endpoints, over the query-cost limit for one read of every field (10,126)", () => {
  let emu: Emulator;
  let ids: string[];
  beforeAll(async () => {
    emu = await start();
    const templateId = await createServerlessTemplate(emu.url, FULL);
    ids = await seedEndpoints(emu.url, FULL, templateId, 460);
  }, BOUND_MS);
  afterAll(async () => {
    await emu?.close();
  });
  const answers = (from: number) => graphqlAnswers(emu, from);

  test("list() reads every field of every endpoint in two documents under the limit, after one refusal; later reads send the two at once", async () => {
    const cp = new ComputePlatform({ apiKey: FULL, apiUrl: emu.url, pacing: new PacingRegistry(), env: {} });
    try {
      const before = emu.requestLog().length;
      const list = await cp.endpoints.list();
      expect(list.unreadable).toEqual([]);
      expect(list.map((e) => e.id).sort()).toEqual([...ids].sort());
      expect(list[0]).toEqual(expect.objectContaining({ name: expect.stringMatching(/^seeded\d+$/), gpuIds: "AMPERE_16", workersMax: 0, locations: null, pods: [] }));
      // The first read learns the size: the one document is refused (over the limit), then two pass.
      expect(answers(before)).toEqual(["graphql 400", "myself 200", "myself 200"]);
      const again = emu.requestLog().length;
      expect(await cp.endpoints.get(ids[459])).toMatchObject({ id: ids[459], name: "seeded459", templateId: list[0].templateId });
      expect(answers(again)).toEqual(["myself 200", "myself 200"]);
    } finally {
      await cp.close();
    }
  }, BOUND_MS);

  test("a read of the fields a caller needs is one document", async () => {
    const cp = new ComputePlatform({ apiKey: FULL, apiUrl: emu.url, pacing: new PacingRegistry(), env: {} });
    try {
      const before = emu.requestLog().length;
      const list = await cp.endpoints.list({ fields: ["name", "networkVolumeId"] });
      expect(list).toHaveLength(460);
      expect(list[0]).toEqual({ id: expect.any(String), name: expect.stringMatching(/^seeded/), networkVolumeId: null });
      expect(answers(before)).toEqual(["myself 200"]);
    } finally {
      await cp.close();
    }
  }, BOUND_MS);
});

// The provider. At N = 3,000 (600 endpoints) refresh and destroy failed on the one `myself` document
// of every field, over the platform's query-cost limit. An account of 460 endpoints (one such
// document costs 10,126): the create
// (its look-before list), the refresh (reads sharing one list) and the delete of the stack's
// endpoints read it in documents of fewer fields, one refused the first time, none after.
describe("the ServerlessEndpoint provider: an account of 460 endpoints, over the query-cost limit for one document of every field", () => {
  let big: Emulator;
  let bigClient: ComputePlatform;
  let bigTpl: string;
  beforeAll(async () => {
    big = await startEmulator({ port: 0, quotas: QUOTAS, timings: { provisioningMs: 10, startingMs: STARTING_MS, drainMs: DRAIN_MS } });
    bigTpl = await createServerlessTemplate(big.url, big.apiKey);
    await seedEndpoints(big.url, big.apiKey, bigTpl, 458, "other");
    bigClient = new ComputePlatform({ apiKey: big.apiKey, apiUrl: big.url, serverlessUrl: big.url, pacing: false, maxRetries: 1 });
  }, BOUND_MS);
  afterAll(async () => {
    await bigClient?.close();
    await big?.close();
  });
  const answers = (from: number) => graphqlAnswers(big, from);

  test("create, refresh and delete of the stack's endpoints read the account within the limit", async () => {
    const p = new ServerlessEndpointProvider({ client: () => bigClient, pollIntervalMs: 5, maxPollIntervalMs: 20 });
    const checked = await Promise.all(
      ["a", "b"].map(async (n) => {
        const r = await p.check({}, { name: `stack-${n}`, gpuIds: "AMPERE_24", templateId: bigTpl, workersMin: 0, workersMax: 1 });
        expect(r.failures ?? []).toEqual([]);
        return r.inputs!;
      }),
    );
    let from = big.requestLog().length;
    const made = await Promise.all(checked.map((i) => p.create(i)));
    // The creates' one look-before list: refused as one document (logged as a refused document), then two.
    expect(answers(from).filter((a) => !a.startsWith("saveEndpoint"))).toEqual(["graphql 400", "myself 200", "myself 200"]);
    expect(big.state().endpoints).toHaveLength(460);

    from = big.requestLog().length;
    const refreshed = await Promise.all(made.map((m) => p.read(m.id, m.outs)));
    expect(refreshed.map((r) => r.props)).toEqual(made.map((m) => expect.objectContaining({ name: m.outs!.name, templateId: bigTpl, workersMax: 1, locations: null })));
    // Both reads share one list, two documents under the limit.
    expect(answers(from)).toEqual(["myself 200", "myself 200"]);

    from = big.requestLog().length;
    await Promise.all(made.map((m) => p.delete(m.id, m.outs!)));
    expect(big.state().endpoints).toHaveLength(458);
    expect(answers(from).filter((a) => a.endsWith(" 400"))).toEqual([]);
    expect(answers(from).filter((a) => a.startsWith("deleteEndpoint"))).toHaveLength(2);
  }, BOUND_MS);
});
