/**
 * Pod in the generated check of preview against up (runner.ts).
 *
 * Removed fields, as the platform and the provider treat them (README, PodArgs):
 * - `name`: the name last applied is kept; a new pod gets `<logical>-<7 hex>`.
 * - `args`: back to the platform's default "" (no arguments).
 * - `disk`, `ports`: the pod keeps what it has (the platform's choice; PodArgs says so).
 * - `env`: the keys the program declared are removed; the platform's own keys stay.
 * - `registry`: back to null (none).
 * - `mounts`, `gpu`/`cpu`, `cloud`: fixed at creation: a new pod without the mount, at SECURE.
 * - `gpu.id` is one GPU type or a preference list (the create takes the first it can place
 *   within `maxHourlyCost`); a new list that still holds the type the pod got is recorded
 *   without a request (an update), one without it a replace (`expectOp` holds the check to it).
 * - `maxHourlyCost`: read at creation only: recorded without a request.
 * - `dataCenterIds`: read at creation only: recorded, the pod does not move.
 * - `globalNetworking`, `locked`: back to false; `desiredStatus`: RUNNING.
 * - `waitFor`, `waitTimeoutSeconds`: not on the platform (they shape the waits).
 * - `adopt`: names a pod to take over at create, so a walk draws it only absent (adoption has
 *   its own walk in test/engine/adopt.test.ts).
 * Draws that break a cross-field rule are put right (`repair`): the compute the change set
 * wins over the other one; a CPU pod drops a persistent mount and globalNetworking; a
 * non-NVIDIA GPU drops globalNetworking and COMMUNITY; a `maxHourlyCost` under every GPU choice's
 * price goes (such a pod cannot be made: the create fails at up, which test/engine/cost.test.ts
 * covers); a network mount adds its volume's data center to
 * `dataCenterIds`; globalNetworking allows only data centers that offer it (check() reads no
 * catalog, so the platform refuses the others at up, as PodArgs says). A removed gpu or cpu
 * that leaves none is refused at check (counted).
 * Outside changes: a PATCH of each field the contract's update takes but globalNetworking
 * (the platform applies it at the next start and shows only the address, so no read can see
 * the request), and a stop or start from the console. A field the program does not declare
 * (args, disk, ports, registry, an env key) is the platform's: the change shows nothing.
 */
import fc from "fast-check";
import { CPU_FLAVORS, DATA_CENTERS, GPU_TYPES } from "../../../src/emulator/catalog/data";
import { canonical } from "../../../src/resources/lifecycle/applied";
import { Pod } from "../../../src/resources/pod";
import { planPodChange, RECORDED_ONLY } from "../../../src/resources/pod/plan";
import { podArgsSchema } from "../../../src/resources/pod/schema";
import { defined, simpleName } from "./network-volume";
import type { Decl, KindModel, OutsideChange, World } from "./model";

export const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 3 });
export const image = fc.constantFrom("img/a:1", "img/a:2", "img/b:1", "registry.example/app:3");
const port = fc.tuple(fc.integer({ min: 1, max: 65535 }), fc.constantFrom("http", "tcp")).map(([n, p]) => `${n}/${p}`);
export const ports = fc.uniqueArray(port, { maxLength: 3, selector: (p) => p.split("/")[0] });
export const env = fc.dictionary(fc.stringMatching(/^[A-Z][A-Z0-9_]{0,3}$/), fc.string({ maxLength: 6 }), { maxKeys: 3, noNullPrototype: true });
const GPUS = ["NVIDIA GeForce RTX 4090", "NVIDIA L40S", "AMD Instinct MI300X"];
/** One GPU type, or a preference list of them. */
const gpuId = fc.oneof(fc.constantFrom(...GPUS), fc.uniqueArray(fc.constantFrom(...GPUS), { minLength: 1, maxLength: 3 }));
const gpu = fc.record({ id: gpuId, count: maybe(fc.integer({ min: 1, max: 2 })) }).map(defined);
/** Around the catalog's prices of GPUS (0.69, 0.86, 2.49 secure; community 20% less): some choices fit, some do not. */
const maxHourlyCost = fc.constantFrom(0.6, 0.75, 1, 1.8, 3, 6);
const cpu = fc.constantFrom(...CPU_FLAVORS.slice(0, 2)).chain((f) =>
  fc.record({ id: fc.constant(f.id), vcpuCount: fc.constantFrom(...[2, 4, 8].filter((n) => n >= f.vcpu.min && n <= f.vcpu.max)) }),
);
export const path = fc.constantFrom("/workspace", "/data", "/mnt/x");
const mounts = (world: World) =>
  fc.oneof(
    fc.record({ persistent: fc.record({ size: fc.integer({ min: 10, max: 60 }), path }) }),
    fc.record({ network: fc.tuple(fc.record({ volumeId: fc.constantFrom(...world.fixtures.volumes!), path })) }).map((m) => ({ network: [...m.network] })),
  );
const dataCenterIds = fc.subarray(DATA_CENTERS.map((d) => d.id), { minLength: 1, maxLength: 3 });

/** A registry credential made for the walk, or null (none). */
export const registryRef = (world: World) => fc.oneof(fc.constant(null), fc.constantFrom(...world.fixtures.registries!));

/** The container configuration and the name: what pods and templates share. */
export const containerValues = (world: World): Record<string, fc.Arbitrary<unknown>> => ({
  name: maybe(simpleName),
  image,
  args: maybe(fc.constantFrom("", "--serve", "run --port 8000")),
  disk: maybe(fc.integer({ min: 1, max: 80 })),
  ports: maybe(ports),
  env: maybe(env),
  registry: maybe(registryRef(world)),
});

const values = (world: World): Record<string, fc.Arbitrary<unknown>> => ({
  ...containerValues(world),
  gpu: maybe(gpu),
  cpu: maybe(cpu),
  mounts: maybe(mounts(world)),
  cloud: maybe(fc.constantFrom("SECURE", "COMMUNITY")),
  dataCenterIds: maybe(dataCenterIds),
  globalNetworking: maybe(fc.boolean()),
  locked: maybe(fc.boolean()),
  desiredStatus: maybe(fc.constantFrom("RUNNING", "EXITED")),
  waitFor: maybe(fc.constantFrom("RUNNING", "PORTS")),
  waitTimeoutSeconds: maybe(fc.integer({ min: 5, max: 120 })),
  adopt: fc.constant(undefined),
  maxHourlyCost: maybe(maxHourlyCost),
});

const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);
const GLOBAL_NETWORK_DCS = DATA_CENTERS.filter((d) => d.globalNetwork).map((d) => d.id);
const volumeDc = (world: World, id: string) => world.emu.state().networkVolumes.find((v) => v.id === id)!.dataCenter;
const choices = (id: unknown): string[] => (Array.isArray(id) ? id : [id as string]);

/** The catalog price of `count` GPUs of `id` for `cloud`, per hour (as the provider's price book reads it). */
function gpuPrice(id: string, count: number, cloud: unknown): number {
  const type = GPU_TYPES.find((t) => t.id === id)!;
  return Math.round((cloud === "COMMUNITY" ? type.price.community : type.price.secure) * count * 1000) / 1000;
}

/** The GPU type a create places: the first choice within maxHourlyCost (the emulator has capacity for all). */
function placed(decl: Decl): string | undefined {
  const g = decl.gpu as { id: string | string[]; count?: number };
  const max = decl.maxHourlyCost as number | undefined;
  return choices(g.id).find((id) => max === undefined || gpuPrice(id, g.count ?? 1, decl.cloud ?? "SECURE") <= max);
}

function repair(next: Decl, old: Decl, world: World): Decl {
  const out = { ...next };
  if (out.gpu && out.cpu) {
    if (!same(out.gpu, old.gpu)) delete out.cpu;
    else delete out.gpu;
  }
  const m = out.mounts as { persistent?: unknown; network?: { volumeId: string }[] } | undefined;
  if (out.cpu) {
    if (m?.persistent) delete out.mounts;
    delete out.globalNetworking;
  }
  const g = out.gpu as { id: string | string[] } | undefined;
  if (g && choices(g.id).some((id) => GPU_TYPES.find((t) => t.id === id)!.manufacturer !== "NVIDIA")) {
    delete out.globalNetworking;
    if (out.cloud === "COMMUNITY") out.cloud = "SECURE";
  }
  if (g && out.maxHourlyCost !== undefined && placed(out) === undefined) delete out.maxHourlyCost;
  if (m?.network) {
    const dc = volumeDc(world, m.network[0]!.volumeId);
    const ids = out.dataCenterIds as string[] | undefined;
    if (ids && !ids.includes(dc)) out.dataCenterIds = [...ids, dc];
  }
  if (out.globalNetworking === true) {
    // check() reads no catalog: which data centers offer global networking the platform
    // checks at up (PodArgs). Allowing only those moves a pod placed elsewhere (a replace).
    const allowed = ((out.dataCenterIds as string[] | undefined) ?? GLOBAL_NETWORK_DCS).filter((id) => GLOBAL_NETWORK_DCS.includes(id));
    if (allowed.length === 0) delete out.globalNetworking;
    else out.dataCenterIds = allowed;
  }
  return out;
}

export const podModel: KindModel = {
  name: "Pod",
  properties: Object.keys(podArgsSchema.shape),
  values,
  initial: (world) =>
    fc.record(values(world)).map((d) => {
      const decl = defined(d);
      if (!decl.gpu && !decl.cpu) decl.gpu = { id: GPUS[0] };
      return repair(decl, {}, world);
    }),
  repair,
  construct: (logical, decl, opts) => new Pod(logical, decl as never, opts),
  live: (world, id) => {
    const pod = world.emu.state().pods.find((p) => p.id === id);
    return pod && pod.status !== "TERMINATED" ? pod : undefined;
  },
  // With no network volume, everything it wrote was on its own disks.
  holdsData: (live) => !(live?.mounts?.network?.length > 0),
  // A container that ran before and after restarted when it started again in between.
  restarted: (before, after) => (before?.status === "RUNNING" && after?.status === "RUNNING" ? before.startedAt !== after.startedAt : undefined),
  expectLive: (decl, live, before, _world, old) => {
    // Declared: that value; removed: the platform's default; never declared: what the pod has.
    const declared = (k: string, fallback: unknown) => (decl[k] !== undefined ? decl[k] : old?.[k] !== undefined || !before ? fallback : before[k]);
    expect(live).toBeDefined();
    const persistentEnv = Object.fromEntries(Object.entries(live.env as Record<string, string>).filter(([k]) => k.startsWith("COMPUTEPLATFORM_")));
    const declaredEnv = (decl.env ?? {}) as Record<string, string>;
    const undeclared = before ? Object.fromEntries(Object.entries(live.env as Record<string, string>).filter(([k]) => !(k in declaredEnv))) : persistentEnv;
    const want: Record<string, unknown> = {
      name: decl.name ?? before?.name ?? expect.stringMatching(/^subject-[0-9a-f]{7}$/),
      image: decl.image,
      args: declared("args", ""),
      disk: decl.disk ?? before?.disk ?? expect.any(Number),
      ports: expect.arrayContaining((decl.ports ?? before?.ports ?? []) as string[]),
      env: { ...undeclared, ...declaredEnv },
      registry: declared("registry", null),
      cloud: decl.cloud ?? "SECURE",
      locked: decl.locked ?? false,
      status: decl.desiredStatus === "EXITED" ? "EXITED" : "RUNNING",
      mounts: decl.mounts ?? {},
      globalNetworking: expect.objectContaining({ enabled: (decl.desiredStatus === "EXITED" ? live.globalNetworking.enabled : decl.globalNetworking) ?? false }),
    };
    const got: Record<string, unknown> = Object.fromEntries(Object.keys(want).map((k) => [k, live[k]]));
    expect(got).toEqual(want);
    expect((live.ports as string[]).length).toBe(((decl.ports ?? before?.ports ?? []) as string[]).length);
    if (decl.gpu) {
      // A new pod: the first choice within maxHourlyCost; an updated one keeps its GPU type, which the list still holds.
      const g = decl.gpu as { id: string | string[]; count?: number };
      const id = before?.gpu ? before.gpu.id : placed(decl);
      expect(live.gpu).toEqual({ id, count: g.count ?? 1 });
      expect(choices(g.id)).toContain(live.gpu.id);
    } else expect(live.cpu).toMatchObject(decl.cpu as object);
    const allowed = decl.dataCenterIds as string[] | undefined;
    if (allowed && !before) expect(allowed).toContain(live.dataCenterId);
  },
  outside: () => ({
    name: patch(simpleName, (v) => ({ name: v }), () => "update"),
    image: patch(image, (v) => ({ image: v }), () => "update"),
    args: patch(fc.constantFrom("", "--debug", "x y"), (v) => ({ args: v }), (d) => (d.args !== undefined ? "update" : "same")),
    disk: patch(fc.integer({ min: 1, max: 80 }), (v) => ({ disk: v }), (d) => (d.disk !== undefined ? "update" : "same")),
    ports: patch(ports, (v) => ({ ports: v }), (d) => (d.ports !== undefined ? "update" : "same")),
    env: patch(
      fc.tuple(fc.stringMatching(/^[A-Z][A-Z0-9_]{0,3}$/), fc.string({ maxLength: 6 })),
      ([k, v], live) => ({ env: { ...live.env, [k]: v } }),
      (d, [k]) => (Object.hasOwn((d.env ?? {}) as object, k) ? "update" : "same"),
    ),
    registry: patch(
      fc.nat(),
      (n, live, world) => ({ registry: [null, ...world.fixtures.registries!][n % (world.fixtures.registries!.length + 1)] }),
      (d) => (d.registry !== undefined ? "update" : "same"),
    ),
    mounts: patch(
      path,
      (p, live) =>
        live.mounts.persistent ? { mounts: { persistent: { ...live.mounts.persistent, path: p } } } : live.mounts.network ? { mounts: { network: [{ ...live.mounts.network[0], path: p }] } } : undefined,
      () => "update",
    ),
    locked: patch(fc.boolean(), (v) => ({ locked: v }), () => "update"),
    desiredStatus: {
      // A console stops or starts the pod.
      value: fc.constant(null),
      apply: async (world, id, _v, live) => {
        if (live.locked || !["RUNNING", "EXITED"].includes(live.status)) return false;
        await world.client.pods.action(id, live.status === "RUNNING" ? "stop" : "start");
        await settle(world, id);
        return true;
      },
      expect: () => "update",
    },
  }),
  plan: (olds, news) => planPodChange(olds, news),
  recordedOnly: RECORDED_ONLY,
  expectOp: (next, old, liveBefore) => {
    // Only a change of gpu.id alone on a GPU pod: the list decides, not the rest of the declaration.
    const a = old.gpu as { id: unknown; count?: number } | undefined;
    const b = next.gpu as { id: unknown; count?: number } | undefined;
    if (!a || !b || !liveBefore?.gpu || (a.count ?? 1) !== (b.count ?? 1)) return undefined;
    if (!same({ ...old, gpu: undefined }, { ...next, gpu: undefined })) return undefined;
    if (!choices(b.id).includes(liveBefore.gpu.id)) return "replace";
    return same(choices(a.id), choices(b.id)) ? "same" : "update";
  },
};

/**
 * A RUNNING or EXITED pod, as a console leaves it once its restart is over. `restartOf`: the
 * pod was RUNNING since that start and a change restarts it (the platform begins the restart a
 * moment after its answer), so wait for a later start.
 */
async function settle(world: World, id: string, restartOf?: string | null): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const pod = await world.client.pods.get(id);
    const restarted = restartOf === undefined || (pod.status === "RUNNING" && pod.startedAt !== restartOf);
    if ((pod.status === "RUNNING" || pod.status === "EXITED") && restarted) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`pod ${id} did not settle`);
}

/** Fields that restart a running container: a locked pod refuses them (409). */
const RESTARTS = ["image", "args", "disk", "ports", "env", "registry", "mounts"];

/** An outside PATCH: `body` from the drawn value (undefined: nothing to change), then the pod settled. */
function patch<T>(
  value: fc.Arbitrary<T>,
  body: (v: T, live: any, world: World) => Record<string, unknown> | undefined,
  expectation: (decl: Decl, v: T) => "update" | "same",
): OutsideChange {
  return {
    value,
    apply: async (world, id, v, live) => {
      const b = body(v as T, live, world);
      if (!b) return false;
      const [field] = Object.keys(b);
      if (same(live[field!], b[field!]) || (field === "ports" && same([...live.ports].sort(), [...(b.ports as string[])].sort()))) return false;
      if (live.locked && RESTARTS.includes(field!)) return false;
      await world.client.pods.update(id, b);
      await settle(world, id, RESTARTS.includes(field!) && live.status === "RUNNING" ? live.startedAt : undefined);
      return true;
    },
    expect: (decl, v) => expectation(decl, v as T),
  };
}
