// Where a Pod's create lands (placement.ts), against the emulator over real HTTP: each GPU type of
// the preference list POSTed in order until one is placed, only the platform's "no capacity" 400
// (docs/emulator.md, "Rules it applies": "No capacity for that GPU type in the allowed data centers: 400, detail says 'no
// capacity'") moving on to the next, a type priced over maxHourlyCost never sent, and the pod's
// price from the catalog. The engine suite (test/engine/cost.test.ts) runs the fallback through
// Pulumi's plugin; this file holds each branch of the module on its own.
import { BadRequestError, type ComputePlatform, ComputePlatform as Client, ConflictError } from "../../../../src/client";
import { systemClock } from "../../../../src/client/core/clock";
import { type Emulator, startEmulator } from "../../../../src/emulator";
import { ACCOUNT_BUDGET_ENV } from "../../../../src/resources/engine/settings";
import { LOGICAL_NAME_KEY, OWNER_TOKEN_KEY } from "../../../../src/resources/lifecycle/owner";
import { planCreate } from "../../../../src/resources/pod/create-plan";
import { type Found, hourlyCostOf, isNoCapacity, place } from "../../../../src/resources/pod/placement";
import { checkPod, type LivePod, OWNER_ENV, type PodInputs } from "../../../../src/resources/pod/schema";
import { clockDoing, FakeClock } from "../../../helpers/fake-clock";

const QUOTAS = { minute: 1_000_000, hour: 10_000_000, day: 100_000_000 };
const H100 = "NVIDIA H100 80GB HBM3";
const A100 = "NVIDIA A100-SXM4-80GB";
const L40S = "NVIDIA L40S";

let emu: Emulator;
let client: ComputePlatform;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, quotas: QUOTAS, timings: { provisioningMs: 30, startingMs: 30 } });
  client = new Client({ apiKey: emu.apiKey, apiUrl: emu.url, pacing: false, maxRetries: 2, baseDelayMs: 2, maxBackoffMs: 20 });
});

afterAll(async () => {
  await client?.close();
  await emu?.close();
});

beforeEach(() => emu.setFaults({}));

function inputs(news: Record<string, unknown>): PodInputs {
  const checked = checkPod({}, { name: "web", image: "img/app:1", [LOGICAL_NAME_KEY]: "web", ...news });
  expect(checked.failures ?? []).toEqual([]);
  return checked.inputs!;
}

const found = (): Found => ({ seenBefore: new Set(), claimed: new Set() });
const ctx = () => ({ client, clock: systemClock });

/** The create requests since `from`, as `status gpu-id`. */
const creates = (from: number) =>
  emu
    .requestLog()
    .slice(from)
    .filter((e) => e.method === "POST" && e.path === "/v2/pods")
    .map((e) => e.status);

const livePods = () => emu.state().pods.filter((p: { status: string }) => p.status !== "TERMINATED");

async function price(gpuId: string, cloud: "SECURE" | "COMMUNITY" = "SECURE"): Promise<number> {
  const type = (await client.catalog.gpus()).find((g) => g.id === gpuId)!;
  return cloud === "SECURE" ? type.price.secure! : type.price.community!;
}

describe("isNoCapacity: the platform's answer that made nothing", () => {
  const err = <E extends typeof BadRequestError>(Kind: E, status: number, detail: string | undefined) =>
    new Kind("m", { status, title: "t", detail: detail as string, errors: [], method: "POST", url: "http://h/v2/pods", code: undefined, retryAfterMs: undefined });

  test.each<[string, Error, boolean]>([
    ["a 400 whose detail says no capacity", err(BadRequestError, 400, "no capacity for GPU type 'x' in the allowed data centers"), true],
    ["in any case", err(BadRequestError, 400, "No Capacity right now"), true],
    ["a 400 of another rule", err(BadRequestError, 400, "registry: no such registry"), false],
    ["a 400 with no detail", err(BadRequestError, 400, undefined), false],
    ["a 409 that says no capacity", err(ConflictError, 409, "no capacity"), false],
    ["an error that is not the platform's", new Error("no capacity"), false],
  ])("%s", (_name, e, yes) => {
    expect(isNoCapacity(e)).toBe(yes);
  });
});

describe("place: each GPU type in order until one is placed", () => {
  test("the first type has no capacity: the second is POSTed and placed; one pod made", async () => {
    emu.setFaults({ noCapacity: [{ gpuId: H100 }] });
    const before = livePods().length;
    const from = emu.requestLog().length;
    const pod = await place(ctx(), planCreate(inputs({ gpu: { id: [H100, A100, L40S] } })), found());
    expect(pod.gpu?.id).toBe(A100);
    expect(creates(from)).toEqual([400, 201]);
    expect(livePods().length).toBe(before + 1);
  });

  test("the first type placed: the rest are never sent", async () => {
    const from = emu.requestLog().length;
    const pod = await place(ctx(), planCreate(inputs({ gpu: { id: [L40S, A100] } })), found());
    expect(pod.gpu?.id).toBe(L40S);
    expect(creates(from)).toEqual([201]);
  });

  test("every type out of capacity: no pod made, and the error names each type, its count, where, and the platform's answer", async () => {
    emu.setFaults({ noCapacity: [{ gpuId: H100 }, { gpuId: A100 }] });
    const before = livePods().length;
    const from = emu.requestLog().length;
    const err = await place(ctx(), planCreate(inputs({ name: "train", gpu: { id: [H100, A100], count: 2 } })), found()).catch((e: Error) => e);
    expect(err.message).toBe(
      `pod "train": none of the GPU types of gpu.id could be placed, and no pod was made. Tried, in order: ` +
        `"${H100}" x2 in any data center: 400 no capacity for GPU type '${H100}' in the allowed data centers; ` +
        `"${A100}" x2 in any data center: 400 no capacity for GPU type '${A100}' in the allowed data centers. ` +
        "Add GPU types to gpu.id, allow more data centers in dataCenterIds, or try again later.",
    );
    expect(creates(from)).toEqual([400, 400]);
    expect(livePods().length).toBe(before);
  });

  test("the data centers the program allows are named", async () => {
    const dcs = (await client.catalog.dataCenters()).map((d) => d.id).slice(0, 2);
    emu.setFaults({ noCapacity: [{ gpuId: H100 }] });
    const err = await place(ctx(), planCreate(inputs({ gpu: { id: [H100] }, dataCenterIds: dcs })), found()).catch((e: Error) => e);
    expect(err.message).toContain(`"${H100}" x1 in data centers ${dcs.join(", ")}: 400 no capacity`);
  });

  test("a failure other than no capacity ends the create as it is: the next type is not tried", async () => {
    // A registry the account does not have: a 400 of another rule (docs/emulator.md), for every type alike.
    const from = emu.requestLog().length;
    const err = await place(ctx(), planCreate(inputs({ gpu: { id: [H100, A100] }, registry: "no-such-registry" })), found()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(isNoCapacity(err)).toBe(false);
    expect(creates(from)).toEqual([400]);
  });

  test("a CPU pod is one POST of its body", async () => {
    const cpu = (await client.catalog.cpus())[0]!;
    const from = emu.requestLog().length;
    const pod = await place(ctx(), planCreate(inputs({ cpu: { id: cpu.id, vcpuCount: 2 } })), found());
    expect(pod.cpu).toMatchObject({ id: cpu.id, vcpuCount: 2 });
    expect(creates(from)).toEqual([201]);
  });
});

describe("place with maxHourlyCost: a type priced over it is not tried", () => {
  test("a type over the limit is skipped without a request; one at the limit is tried", async () => {
    const [l40s, a100] = [await price(L40S), await price(A100)];
    const [dear, cheap] = l40s > a100 ? [L40S, A100] : [A100, L40S];
    const from = emu.requestLog().length;
    const pod = await place(ctx(), planCreate(inputs({ gpu: { id: [dear, cheap] }, maxHourlyCost: Math.min(l40s, a100) })), found());
    expect(pod.gpu?.id).toBe(cheap);
    expect(creates(from)).toEqual([201]);
  });

  test("every type over the limit: nothing sent; the error gives each type's price for the pod's cloud and count", async () => {
    const each = await price(L40S, "COMMUNITY");
    const from = emu.requestLog().length;
    const err = await place(ctx(), planCreate(inputs({ gpu: { id: [L40S], count: 2 }, cloud: "COMMUNITY", maxHourlyCost: 0.01 })), found()).catch((e: Error) => e);
    expect(err.message).toContain(`"${L40S}" x2: not tried, its COMMUNITY price $${(2 * each).toFixed(2)}/h is over maxHourlyCost $0.01/h`);
    expect(err.message).toContain("no pod was made");
    expect(creates(from)).toEqual([]);
  });

  test("a type the catalog does not price is tried (the platform decides)", async () => {
    const from = emu.requestLog().length;
    const err = await place(ctx(), planCreate(inputs({ gpu: { id: ["NVIDIA Nonesuch 1GB"] }, maxHourlyCost: 0.01 })), found()).catch((e: unknown) => e);
    // The platform refuses the unknown type: the POST was sent, not skipped by the price.
    expect(creates(from)).toHaveLength(1);
    expect((err as Error).message).not.toContain("not tried");
  });

  test("a CPU pod priced over it is not created: the error names its flavor, price and the cap, and nothing is sent", async () => {
    const cpu = (await client.catalog.cpus())[0]!;
    const before = livePods().length;
    const from = emu.requestLog().length;
    const err = await place(ctx(), planCreate(inputs({ name: "cpu-dear", cpu: { id: cpu.id, vcpuCount: 8 }, maxHourlyCost: 0.01 })), found()).catch((e: Error) => e);
    expect(err.message).toBe(
      `pod "cpu-dear": cpu "${cpu.id}" x8 vCPU costs $${(cpu.price.securePerVcpu * 8).toFixed(2)}/h at the SECURE price, over its maxHourlyCost $0.01/h; no pod was made. ` +
        "Choose fewer vCPUs or another flavor, or raise maxHourlyCost.",
    );
    expect(creates(from)).toEqual([]);
    expect(livePods().length).toBe(before);
    // Under the cap it is created as any CPU pod.
    const pod = await place(ctx(), planCreate(inputs({ cpu: { id: cpu.id, vcpuCount: 2 }, maxHourlyCost: 1000 })), found());
    expect(pod.cpu).toMatchObject({ id: cpu.id, vcpuCount: 2 });
  });
});

describe("hourlyCostOf: the catalog price of what the pod got", () => {
  const pod = (over: Partial<LivePod>) => ({ cloud: "SECURE", gpu: undefined, cpu: undefined, ...over }) as unknown as LivePod;

  test("a GPU pod: the price of its type for its cloud, times its count", async () => {
    expect(await hourlyCostOf(client, pod({ gpu: { id: L40S, count: 3 } } as Partial<LivePod>))).toEqual({ hourlyCost: Number((3 * (await price(L40S))).toFixed(2)) });
    expect(await hourlyCostOf(client, pod({ gpu: { id: L40S, count: 1 }, cloud: "COMMUNITY" } as Partial<LivePod>))).toEqual({ hourlyCost: await price(L40S, "COMMUNITY") });
  });

  test("a CPU pod: its flavor's per-vCPU price times vcpuCount", async () => {
    const cpu = (await client.catalog.cpus())[0]!;
    const { hourlyCost } = await hourlyCostOf(client, pod({ cpu: { id: cpu.id, vcpuCount: 4, memory: 8 } } as Partial<LivePod>));
    expect(hourlyCost).toBeCloseTo(cpu.price.securePerVcpu * 4, 2);
  });

  test("a type the catalog does not list: no price, not a wrong one", async () => {
    expect(await hourlyCostOf(client, pod({ gpu: { id: "NVIDIA Nonesuch 1GB", count: 1 } } as Partial<LivePod>))).toStrictEqual({});
  });

  test("a catalog that cannot answer leaves the price out; the pod stands", async () => {
    const broken = { catalog: { gpus: () => Promise.reject(new Error("catalog down")), cpus: () => Promise.reject(new Error("catalog down")) } } as unknown as ComputePlatform;
    expect(await hourlyCostOf(broken, pod({ gpu: { id: L40S, count: 1 } } as Partial<LivePod>))).toEqual({});
  });
});

/** The requests the emulator answered since `from`, as `METHOD path`. */
const requestsSince = (from: number) =>
  emu
    .requestLog()
    .slice(from)
    .map((e) => `${e.method} ${e.path}`);

describe("place without maxHourlyCost", () => {
  test("reads no catalog: a GPU or a CPU pod is its POST alone", async () => {
    // A client of its own: the catalog is read once per client, so an earlier read would hide one.
    const fresh = new Client({ apiKey: emu.apiKey, apiUrl: emu.url, pacing: false });
    try {
      const cpu = (await client.catalog.cpus())[0]!;
      const from = emu.requestLog().length;
      await place({ client: fresh, clock: systemClock }, planCreate(inputs({ name: "uncapped-gpu", gpu: { id: [L40S] } })), found());
      await place({ client: fresh, clock: systemClock }, planCreate(inputs({ name: "uncapped-cpu", cpu: { id: cpu.id, vcpuCount: 2 } })), found());
      expect(requestsSince(from)).toEqual(["POST /v2/pods", "POST /v2/pods"]);
    } finally {
      await fresh.close();
    }
  });
});

test("a CPU pod priced exactly at maxHourlyCost is created", async () => {
  const cpu = (await client.catalog.cpus())[0]!;
  const priced = { cloud: "SECURE", cpu: { id: cpu.id, vcpuCount: 4, memory: 8 } } as unknown as LivePod;
  const { hourlyCost } = await hourlyCostOf(client, priced);
  const pod = await place(ctx(), planCreate(inputs({ name: "cpu-at-cap", cpu: { id: cpu.id, vcpuCount: 4 }, maxHourlyCost: hourlyCost })), found());
  expect(pod.cpu).toMatchObject({ id: cpu.id, vcpuCount: 4 });
});

test("a budget the pod would break refuses it before any POST", async () => {
  process.env[ACCOUNT_BUDGET_ENV] = "0.01";
  try {
    const from = emu.requestLog().length;
    await expect(place(ctx(), planCreate(inputs({ name: "over-budget", gpu: { id: [L40S] } })), found())).rejects.toThrow(/budget/);
    expect(creates(from)).toEqual([]);
  } finally {
    delete process.env[ACCOUNT_BUDGET_ENV];
  }
});

describe("place: a create whose answer is lost is looked for again", () => {
  /** The POST's answer lost and the client's own look-up failing (its list, each try), so place looks again. */
  const loseAnswer = (lists = 3) =>
    emu.setFaults({
      aimed: [
        { method: "POST", path: "/v2/pods", fault: "drop" },
        { method: "GET", path: "/v2/pods", fault: "5xx", times: lists },
      ],
    });
  const named = (name: string) => livePods().filter((p: { name: string }) => p.name === name);

  test("the pod its body made, not one of its name but another image made meanwhile", async () => {
    // No owner token: the body carries no owner mark.
    const plan = planCreate({ ...inputs({ name: "lost-plain", gpu: { id: [L40S] } }), [OWNER_TOKEN_KEY]: undefined } as PodInputs);
    expect(plan.body.env).toBeUndefined();
    let other: LivePod | undefined;
    const clock = clockDoing(async () => (other = await client.pods.create({ ...plan.bodyFor(L40S), image: "img/other:1" })));
    loseAnswer();
    const pod = await place({ client, clock }, plan, found());
    expect(other).toBeDefined();
    expect(pod).toMatchObject({ name: "lost-plain", image: "img/app:1" });
    expect(named("lost-plain").map((p: { id: string }) => p.id).sort()).toEqual([pod.id, other!.id].sort());
  });

  test("an owned create takes only the pod of its own mark: not one of another mark, not one of none, made meanwhile", async () => {
    const plan = planCreate({ ...inputs({ name: "lost-owned", gpu: { id: [L40S] } }), [OWNER_TOKEN_KEY]: "tok-placement" } as PodInputs);
    const body = plan.bodyFor(L40S);
    expect(body.env?.[OWNER_ENV]).toMatch(/^tok-placement\./);
    const others: string[] = [];
    const clock = clockDoing(async () => {
      for (const env of [{ [OWNER_ENV]: "tok-other.0000" }, {}] as Record<string, string>[]) others.push((await client.pods.create({ ...body, env })).id);
    });
    loseAnswer();
    const pod = await place({ client, clock }, plan, found());
    expect(others).toHaveLength(2);
    expect(others).not.toContain(pod.id);
    expect(pod.env?.[OWNER_ENV]).toBe(body.env?.[OWNER_ENV]);
  });

  test("no list answers: the create fails naming the pod and what to do before running again", async () => {
    loseAnswer(100);
    const plan = planCreate(inputs({ name: "lost-unknown", gpu: { id: [L40S] } }));
    await expect(place({ client, clock: new FakeClock() }, plan, found())).rejects.toThrow(
      `creating pod "${plan.body.name}" failed and whether the pod exists is unknown (injected fault: the platform failed [500 from GET /v2/pods]); ` +
        `the stack's state holds no pod for it. Before running the deployment again, look for a pod named "${plan.body.name}" and delete it or declare it with adopt.`,
    );
  });

  test("a deployment cancelled during the look stops it: no list is sent after", async () => {
    const controller = new AbortController();
    const clock = clockDoing(async () => controller.abort(new Error("deployment cancelled")));
    loseAnswer();
    const from = emu.requestLog().length;
    await expect(place({ client, clock, signal: controller.signal }, planCreate(inputs({ name: "lost-cancelled", gpu: { id: [L40S] } })), found())).rejects.toThrow(
      "deployment cancelled",
    );
    expect(requestsSince(from).filter((r) => r === "GET /v2/pods")).toHaveLength(3);
  });
});
