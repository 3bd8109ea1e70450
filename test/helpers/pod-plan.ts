// The pod plans' fixtures: checked inputs (as check() makes them) and the pod the platform
// would report for them, which the plan, create-plan and update tests of the pod share.
import type { Pod as WirePod } from "../../src/client/schemas";
import { LOGICAL_NAME_KEY } from "../../src/resources/lifecycle/owner";
import { checkPod, type PodInputs } from "../../src/resources/pod/schema";

export const PLATFORM_ENV = { COMPUTEPLATFORM_POD_ID: "pod-1" };

/** The pod the platform would report for these inputs, RUNNING, with its own env key added. */
export function liveFor(inputs: PodInputs, over: Partial<WirePod> = {}): WirePod {
  return {
    id: "pod-1",
    name: inputs.name,
    status: "RUNNING",
    actions: ["stop", "restart", "terminate"],
    image: inputs.image,
    args: inputs.args ?? "",
    disk: inputs.disk ?? 20,
    mounts: (inputs.mounts ?? {}) as WirePod["mounts"],
    ports: inputs.ports ?? [],
    env: { ...(inputs.env ?? {}), ...PLATFORM_ENV },
    registry: inputs.registry ?? null,
    // The first GPU type of a preference list: the one the platform had capacity for.
    ...(inputs.gpu ? { gpu: { id: [inputs.gpu.id].flat()[0]!, count: inputs.gpu.count } } : {}),
    ...(inputs.cpu ? { cpu: { ...inputs.cpu, memory: 4 } } : {}),
    cloud: inputs.cloud,
    dataCenterId: "EU-RO-1",
    template: null,
    cost: 1.2,
    locked: inputs.locked,
    globalNetworking: inputs.globalNetworking ? { enabled: true, ip: "10.66.0.1", internalDns: "pod-1.x" } : { enabled: false },
    runtime: {
      uptime: 5,
      ports: (inputs.ports ?? []).map((p) => ({ private: Number(p.split("/")[0]), public: 40000, type: p.split("/")[1], ip: "203.0.113.9" })),
    },
    createdAt: "2026-01-01T00:00:00.000Z",
    startedAt: "2026-01-01T00:00:05.000Z",
    ...over,
  };
}

/** Inputs as check() makes them, for the logical name `web`; a failure fails the test. */
export function checked(raw: Record<string, unknown>, olds?: Record<string, unknown>): PodInputs {
  const r = checkPod(olds, { [LOGICAL_NAME_KEY]: "web", ...raw });
  expect(r.failures).toEqual([]);
  return r.inputs!;
}

/** A GPU pod of every container field, on a network volume, in two data centers. */
export const gpuPod = {
  name: "web-1",
  image: "img:1",
  args: "--serve",
  disk: 40,
  ports: ["8888/http", "22/tcp"],
  env: { A: "1", B: "2" },
  registry: "reg-1",
  gpu: { id: "NVIDIA_A100", count: 1 },
  mounts: { network: [{ volumeId: "vol-1", path: "/workspace" }] },
  dataCenterIds: ["EU-RO-1", "US-TX-3"],
};
export const persistentPod = { ...gpuPod, mounts: { persistent: { size: 20, path: "/data" } } };
export const plainPod = { ...gpuPod, mounts: undefined };
export const cpuPod = { ...gpuPod, gpu: undefined, cpu: { id: "cpu3c", vcpuCount: 4 }, mounts: undefined };
