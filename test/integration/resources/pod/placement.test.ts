// Where a Pod's create lands (placement.ts), against the emulator over HTTP: the GPU types of a
// preference list are POSTed in order until one has capacity, only the platform's "no capacity"
// (a 400 that made nothing) moves on, a type priced over maxHourlyCost is not tried, and when
// none is placed the error names each try and no pod exists. The catalog prices what was made;
// a catalog that cannot answer leaves the price out. (test/engine/cost.test.ts runs the same
// through Pulumi's plugin; this drives the module itself and counts its requests.)
import { BadRequestError, ComputePlatform, makeApiError } from "../../../../src/client";
import { type Emulator, startEmulator } from "../../../../src/emulator";
import { planCreate } from "../../../../src/resources/pod/create-plan";
import { hourlyCostOf, isNoCapacity, place } from "../../../../src/resources/pod/placement";
import { checkPod, type LivePod } from "../../../../src/resources/pod/schema";
import { FakeClock } from "../../../helpers/fake-clock";

const KEY = "cp_sentinel_placement_5a1c";
const H100 = "NVIDIA H100 80GB HBM3";
const A100 = "NVIDIA A100-SXM4-80GB";
const L40S = "NVIDIA L40S";
const RTX4090 = "NVIDIA GeForce RTX 4090";

let emu: Emulator;
let client: ComputePlatform;

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    keys: [{ key: KEY, scopes: ["read", "write"] }],
    quotas: { minute: 100_000, hour: 1_000_000, day: 10_000_000 },
    timings: { provisioningMs: 10, startingMs: 10, restartDelayMs: 10 },
    faults: { noCapacity: [{ gpuId: H100 }, { gpuId: A100 }] },
  });
  client = new ComputePlatform({ apiKey: KEY, apiUrl: emu.url, env: {}, clock: new FakeClock() });
}, 30_000);

afterAll(async () => {
  await client?.close();
  await emu?.close();
});

const ctx = () => ({ client, clock: new FakeClock() });
const found = () => ({ seenBefore: new Set<string>(), claimed: new Set<string>() });
const planFor = (args: Record<string, unknown>) => {
  const r = checkPod(undefined, { image: "trainer:1", ...args });
  expect(r.failures).toEqual([]);
  return planCreate(r.inputs!);
};
/** The pod creates sent since `from`, as the GPU type each asked for and the status answered. */
const postsSince = (from: number) =>
  emu
    .requestLog()
    .slice(from)
    .filter((e) => e.method === "POST" && e.path === "/v2/pods")
    .map((e) => e.status);
const livePodsNamed = (name: string) => (emu.state().pods as { name: string; status: string }[]).filter((p) => p.name === name && p.status !== "TERMINATED");

test("the first type with capacity is placed: one POST per type tried, one pod made", async () => {
  const from = emu.requestLog().length;
  const pod = await place(ctx(), planFor({ name: "fallback", gpu: { id: [H100, A100, L40S] } }), found());
  expect(pod.gpu?.id).toBe(L40S);
  expect(postsSince(from)).toEqual([400, 400, expect.any(Number)]);
  expect(postsSince(from)[2]).toBeLessThan(300);
  expect(livePodsNamed("fallback")).toHaveLength(1);
});

test("every type out of capacity: nothing made, the error names each try, where, and what to change", async () => {
  const from = emu.requestLog().length;
  const err = (await place(ctx(), planFor({ name: "nowhere", gpu: { id: [H100, A100], count: 2 }, dataCenterIds: ["EU-RO-1"] }), found()).catch((e) => e)) as Error;
  expect(err.message).toMatch(/^pod "nowhere": none of the GPU types of gpu\.id could be placed, and no pod was made\. Tried, in order: /);
  expect(err.message).toContain(`"${H100}" x2 in data centers EU-RO-1: 400 `);
  expect(err.message).toContain(`"${A100}" x2 in data centers EU-RO-1: 400 `);
  expect(err.message).toMatch(/no capacity/i);
  expect(err.message).toContain("Add GPU types to gpu.id, allow more data centers in dataCenterIds, or try again later.");
  expect(postsSince(from)).toEqual([400, 400]);
  expect(livePodsNamed("nowhere")).toHaveLength(0);
  const anywhere = (await place(ctx(), planFor({ name: "nowhere2", gpu: { id: [H100] } }), found()).catch((e) => e)) as Error;
  expect(anywhere.message).toContain(`"${H100}" x1 in any data center: 400`);
});

test("a type priced over maxHourlyCost is not tried; the first that fits is", async () => {
  const from = emu.requestLog().length;
  const pod = await place(ctx(), planFor({ name: "capped", gpu: { id: [H100, L40S, RTX4090] }, maxHourlyCost: 0.8 }), found());
  expect(pod.gpu?.id).toBe(RTX4090);
  expect(postsSince(from)).toHaveLength(1);
});

test("nothing affordable: the error says each type was not tried and why", async () => {
  const from = emu.requestLog().length;
  const err = (await place(ctx(), planFor({ name: "dear", gpu: { id: [L40S] }, maxHourlyCost: 0.01 }), found()).catch((e) => e)) as Error;
  expect(err.message).toMatch(new RegExp(`"${L40S}" x1: not tried, its SECURE price \\$\\d+\\.\\d\\d/h is over maxHourlyCost \\$0\\.01/h`));
  expect(postsSince(from)).toEqual([]);
});

test("a refusal other than no capacity ends the create as it is: the next type is not tried", async () => {
  const from = emu.requestLog().length;
  const err = await place(ctx(), planFor({ name: "refused", gpu: { id: [L40S, RTX4090], count: 64 } }), found()).catch((e) => e);
  expect(err).toBeInstanceOf(BadRequestError);
  expect(isNoCapacity(err)).toBe(false);
  expect(postsSince(from)).toHaveLength(1);
});

test("a CPU pod is POSTed once, as its plan's body", async () => {
  const from = emu.requestLog().length;
  const pod = await place(ctx(), planFor({ name: "cpu-one", cpu: { id: "cpu3c", vcpuCount: 2 } }), found());
  expect(pod.cpu?.id).toBe("cpu3c");
  expect(postsSince(from)).toHaveLength(1);
});

describe("hourlyCostOf and isNoCapacity", () => {
  test("the catalog price of what the pod got; none when the catalog cannot answer", async () => {
    const pod = await place(ctx(), planFor({ name: "priced", gpu: { id: L40S, count: 2 } }), found());
    const { hourlyCost } = await hourlyCostOf(client, pod);
    const l40s = (await client.catalog.gpus()).find((g) => g.id === L40S)!;
    expect(hourlyCost).toBeCloseTo(2 * l40s.price.secure, 3);
    const broken = { catalog: { gpus: () => Promise.reject(new Error("catalog down")), cpus: () => Promise.reject(new Error("down")) } } as unknown as ComputePlatform;
    await expect(hourlyCostOf(broken, pod)).resolves.toEqual({});
    const unlisted = { ...pod, gpu: { id: "NOT A GPU", count: 1 } } as LivePod;
    await expect(hourlyCostOf(client, unlisted)).resolves.toEqual({});
  });

  test("no capacity is a 400 whose detail says so, and nothing else is", () => {
    const e = (status: number, detail: string) => makeApiError({ status, title: "", detail, errors: [], method: "POST", url: "http://h/v2/pods" });
    expect(isNoCapacity(e(400, "No capacity for GPU type 'X'"))).toBe(true);
    expect(isNoCapacity(e(400, "gpu.count is too large"))).toBe(false);
    expect(isNoCapacity(e(409, "no capacity"))).toBe(false);
    expect(isNoCapacity(new Error("no capacity"))).toBe(false);
  });
});
