// The pod's life driven directly on a manual clock (docs/emulator.md, "Rules it applies"): each status
// entered at its exact time (no timer: derived from timestamps when read), the actions offered
// by status, what each action does and when billing starts and stops, the lock, an update's
// restart (after its delay, or at once), global networking taking effect at the next start, and
// the platform's own stop and terminate. The HTTP tests see statuses a real clock lets them
// catch; these hold each to the millisecond and count every billing call.
import { ACTIONS, type PodEnvironment, type PodRecord, Pods } from "../../../../src/emulator/pods/store";
import { HttpError } from "../../../../src/emulator/core/problem";
import type { NetworkVolume } from "../../../../src/emulator/network-volumes/store";

const NVIDIA = "NVIDIA GeForce RTX 4090";

function setup(restartDelayMs = 0, more: Partial<PodEnvironment> = {}) {
  const clock = { t: 1_000 };
  const billing: [string, boolean, number][] = [];
  let n = 0;
  const env: PodEnvironment = {
    now: () => clock.t,
    timings: () => ({ provisioningMs: 100, startingMs: 200, restartDelayMs }),
    timeScale: 1,
    newId: () => `pod${++n}`,
    nextNumber: () => ++n,
    volume: () => undefined,
    registryExists: () => false,
    failsToStart: (image) => image === "bad",
    hasCapacity: () => true,
    billing: (pod, on, at) => billing.push([pod.id, on, at]),
    ...more,
  };
  const pods = new Pods(env);
  const create = (more: Record<string, unknown> = {}) => pods.create({ name: "p", image: "img", gpu: { id: NVIDIA }, ...more });
  return { clock, billing, pods, create };
}

function refusal(f: () => unknown): [number, string] {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(HttpError);
    return [(e as HttpError).status, (e as HttpError).detail];
  }
  throw new Error("expected a refusal");
}

test("the actions by status are the platform's table, read by action: where each is offered", () => {
  const offered = (action: string) => Object.entries(ACTIONS).filter(([, actions]) => actions.includes(action as never)).map(([status]) => status).sort();
  expect(offered("start")).toEqual(["ERROR", "EXITED", "PROVISIONING"]);
  expect(offered("stop")).toEqual(["RUNNING", "STARTING"]);
  expect(offered("restart")).toEqual(["RUNNING"]);
  expect(offered("terminate")).toEqual(["ERROR", "EXITED", "PROVISIONING", "RUNNING", "STARTING"]);
  expect(ACTIONS.TERMINATED).toEqual([]);
  // In the order the platform lists them.
  expect(ACTIONS.RUNNING).toEqual(["stop", "restart", "terminate"]);
});

test("PROVISIONING, then STARTING after provisioningMs, then RUNNING after startingMs, each to the millisecond", () => {
  const { clock, pods, create, billing } = setup();
  const pod = create();
  expect(billing).toEqual([[pod.id, true, 1_000]]);
  const at = (t: number) => ((clock.t = t), pods.get(pod.id));
  expect(at(1_099).status).toBe("PROVISIONING");
  expect(at(1_100).status).toBe("STARTING");
  expect(at(1_299).status).toBe("STARTING");
  expect(at(1_300)).toMatchObject({ status: "RUNNING", startedAt: 1_300, statusAt: 1_300 });
  // Read late, a pod has gone through every step at its own time.
  const { clock: c2, pods: p2, create: make2 } = setup();
  const late = make2();
  c2.t = 99_999;
  expect(p2.get(late.id)).toMatchObject({ status: "RUNNING", startedAt: 1_300 });
});

test("an image that cannot start goes to ERROR where it would have run; start tries again", () => {
  const { clock, pods, create } = setup();
  const pod = create({ image: "bad" });
  clock.t = 1_300;
  expect(pods.get(pod.id)).toMatchObject({ status: "ERROR", startedAt: null });
  expect(pods.update(pod.id, { image: "img" }).status).toBe("ERROR"); // picked up at the next start
  clock.t = 2_000;
  expect(pods.action(pod.id, { action: "start" }).status).toBe("STARTING");
  clock.t = 2_200;
  expect(pods.get(pod.id)).toMatchObject({ status: "RUNNING", startedAt: 2_200 });
});

test("start while PROVISIONING is accepted and changes nothing", () => {
  const { clock, pods, create } = setup();
  const pod = create();
  clock.t = 1_050;
  expect(pods.action(pod.id, { action: "start" })).toMatchObject({ status: "PROVISIONING", statusAt: 1_000 });
});

test("stop → EXITED, billing off; start → STARTING → RUNNING, billing on again", () => {
  const { clock, pods, create, billing } = setup();
  const pod = create();
  clock.t = 2_000;
  expect(pods.action(pod.id, { action: "stop" })).toMatchObject({ status: "EXITED", statusAt: 2_000 });
  clock.t = 3_000;
  expect(pods.action(pod.id, { action: "start" })).toMatchObject({ status: "STARTING", statusAt: 3_000 });
  clock.t = 3_200;
  expect(pods.get(pod.id)).toMatchObject({ status: "RUNNING", startedAt: 3_200 });
  expect(billing).toEqual([
    [pod.id, true, 1_000],
    [pod.id, false, 2_000],
    [pod.id, true, 3_000],
  ]);
});

test("restart → STARTING → RUNNING with billing untouched; terminate → TERMINATED from any status, then nothing is offered", () => {
  const { clock, pods, create, billing } = setup();
  const pod = create();
  clock.t = 2_000;
  expect(pods.action(pod.id, { action: "restart" }).status).toBe("STARTING");
  clock.t = 2_200;
  expect(pods.get(pod.id)).toMatchObject({ status: "RUNNING", startedAt: 2_200 });
  expect(billing).toHaveLength(1);
  const { pods: p2, create: make2 } = setup();
  const provisioning = make2();
  expect(p2.action(provisioning.id, { action: "terminate" }).status).toBe("TERMINATED");
  expect(refusal(() => p2.action(provisioning.id, { action: "start" }))).toEqual([409, "action 'start' is not valid while the pod is TERMINATED (valid: none)"]);
  // delete of a terminated pod is the same answer again, billing not called twice.
  const calls = billing.length;
  p2.delete(provisioning.id);
  expect(p2.delete(provisioning.id).status).toBe("TERMINATED");
  expect(billing).toHaveLength(calls);
});

test("an action the status does not offer is a 409 naming the valid ones", () => {
  const { clock, pods, create } = setup();
  const pod = create();
  expect(refusal(() => pods.action(pod.id, { action: "stop" }))).toEqual([409, "action 'stop' is not valid while the pod is PROVISIONING (valid: start, terminate)"]);
  clock.t = 1_100;
  expect(refusal(() => pods.action(pod.id, { action: "restart" }))).toEqual([409, "action 'restart' is not valid while the pod is STARTING (valid: stop, terminate)"]);
  clock.t = 1_300;
  expect(refusal(() => pods.action(pod.id, { action: "start" }))).toEqual([409, "action 'start' is not valid while the pod is RUNNING (valid: stop, restart, terminate)"]);
});

test("a locked pod refuses stop and restart, and any update that would restart it; terminate still works", () => {
  const { clock, pods, create } = setup();
  const pod = create();
  clock.t = 1_300;
  pods.update(pod.id, { locked: true });
  expect(refusal(() => pods.action(pod.id, { action: "stop" }))[0]).toBe(409);
  expect(refusal(() => pods.action(pod.id, { action: "restart" }))[1]).toMatch(/is locked: it cannot be stopped or restarted/);
  expect(refusal(() => pods.update(pod.id, { image: "img:2" }))[1]).toMatch(/is locked: a change of image/);
  // Unlocking in the same update lets it through.
  expect(pods.update(pod.id, { image: "img:2", locked: false }).status).toBe("STARTING");
  expect(pods.action(pod.id, { action: "terminate" }).status).toBe("TERMINATED");
});

test("an update: name and locked at once; a container field restarts a RUNNING pod after the restart delay", () => {
  const { clock, pods, create } = setup(50);
  const pod = create();
  clock.t = 2_000;
  expect(pods.update(pod.id, { name: "q" })).toMatchObject({ name: "q", status: "RUNNING", startedAt: 1_300 });
  expect(pods.update(pod.id, { env: { A: "1" } })).toMatchObject({ status: "RUNNING", restartAt: 2_050 });
  // A second change before the restart begins does not push it back.
  clock.t = 2_030;
  expect(pods.update(pod.id, { args: "x" }).restartAt).toBe(2_050);
  clock.t = 2_049;
  expect(pods.get(pod.id).status).toBe("RUNNING");
  clock.t = 2_050;
  expect(pods.get(pod.id)).toMatchObject({ status: "STARTING", statusAt: 2_050 });
  clock.t = 2_250;
  expect(pods.get(pod.id)).toMatchObject({ status: "RUNNING", startedAt: 2_250 });
  // The same values again change nothing.
  expect(pods.update(pod.id, { env: { A: "1" }, args: "x" }).restartAt).toBeUndefined();
});

test("an update of a stopped pod waits for its next start; a terminated pod takes no update", () => {
  const { clock, pods, create } = setup();
  const pod = create();
  clock.t = 2_000;
  pods.action(pod.id, { action: "stop" });
  expect(pods.update(pod.id, { image: "img:2" })).toMatchObject({ status: "EXITED", image: "img:2" });
  pods.action(pod.id, { action: "terminate" });
  expect(refusal(() => pods.update(pod.id, { name: "x" }))).toEqual([409, `pod '${pod.id}' is TERMINATED and cannot be updated`]);
});

test("global networking asked in an update takes effect at the next start, and off removes the address then", () => {
  const { clock, pods, create } = setup();
  const pod = create({ dataCenterIds: ["EU-RO-1"] });
  clock.t = 2_000;
  pods.update(pod.id, { globalNetworking: true });
  expect(pods.get(pod.id).globalIp).toBeUndefined();
  pods.action(pod.id, { action: "restart" });
  const ip = pods.get(pod.id).globalIp;
  expect(ip).toMatch(/^10\.66\.\d+\.\d+$/);
  pods.update(pod.id, { globalNetworking: false });
  expect(pods.get(pod.id).globalIp).toBe(ip);
  clock.t = 3_000;
  pods.action(pod.id, { action: "restart" });
  expect(pods.get(pod.id).globalIp).toBeUndefined();
});

test("the platform's own stop and terminate: a lock does not hold them back; a second is a 409", () => {
  const { clock, pods, create, billing } = setup(50);
  const pod: PodRecord = create();
  clock.t = 2_000;
  pods.update(pod.id, { locked: true });
  expect(pods.outside(pod.id, "stop")).toMatchObject({ status: "EXITED", statusAt: 2_000 });
  expect(billing.at(-1)).toEqual([pod.id, false, 2_000]);
  expect(refusal(() => pods.outside(pod.id, "stop"))).toEqual([409, `pod '${pod.id}' is already EXITED`]);
  expect(pods.outside(pod.id, "terminate").status).toBe("TERMINATED");
  expect(refusal(() => pods.outside(pod.id, "terminate"))).toEqual([409, `pod '${pod.id}' is already TERMINATED`]);
  expect(pods.list()).toEqual([]);
  expect(pods.get(pod.id).status).toBe("TERMINATED");
  expect(refusal(() => pods.get("nope"))).toEqual([404, "pod 'nope' not found"]);
});

describe("a create's record", () => {
  test("what the body leaves out takes the platform's defaults", () => {
    const { create } = setup();
    expect(create()).toMatchObject({
      args: "",
      disk: 20,
      ports: [],
      publicPorts: [],
      env: {},
      registry: null,
      gpu: { id: NVIDIA, count: 1 },
      cpu: undefined,
      mounts: {},
      cloud: "SECURE",
      locked: false,
      globalIp: undefined,
      globalNetworkingWanted: false,
      status: "PROVISIONING",
      startedAt: null,
    });
  });

  test("what the body gives is kept; a public IP in 203.0.113.1-250 and a public port in 10000-59999 for each port", () => {
    const { create } = setup(0, { nextNumber: () => 60_000, registryExists: (id) => id === "reg-1" });
    const given = {
      args: "serve",
      disk: 50,
      ports: ["8888/http", "22/tcp"],
      env: { A: "1" },
      registry: "reg-1",
      gpu: { id: NVIDIA, count: 2 },
      cloud: "COMMUNITY",
      mounts: { persistent: { size: 30, path: "/workspace" } },
    };
    const pod = create({ ...given, dataCenterIds: ["EU-RO-1"], globalNetworking: true });
    expect(pod).toMatchObject({
      ...given,
      dataCenterId: "EU-RO-1",
      globalNetworkingWanted: true,
      // 60000 = 0xEA60: the global address is built from its two low bytes.
      globalIp: "10.66.234.96",
      publicIp: "203.0.113.1",
      publicPorts: [20_000, 20_000],
    });
    expect(setup(0, { nextNumber: () => 499 }).create().publicIp).toBe("203.0.113.250");
  });

  test("a CPU pod keeps its flavor and count, and has no GPU", () => {
    const { pods } = setup();
    expect(pods.create({ name: "p", image: "img", cpu: { id: "cpu3c", vcpuCount: 4 } })).toMatchObject({ cpu: { id: "cpu3c", vcpuCount: 4 }, gpu: undefined });
  });

  test("a network mount names a volume that exists, and the pod goes to the volume's data center", () => {
    const vol = { id: "vol-1", dataCenter: "EU-CZ-1" } as NetworkVolume;
    const { create } = setup(0, { volume: (id) => (id === "vol-1" ? vol : undefined) });
    expect(create({ mounts: { network: [{ volumeId: "vol-1", path: "/data" }] } })).toMatchObject({
      mounts: { network: [{ volumeId: "vol-1", path: "/data" }] },
      dataCenterId: "EU-CZ-1",
    });
    expect(refusal(() => create({ mounts: { network: [{ volumeId: "vol-2", path: "/data" }] } }))).toEqual([
      400,
      "mounts.network[0].volumeId: network volume 'vol-2' does not exist",
    ]);
  });

  test("a body that breaks the contract (422), or names a registry that does not exist (400), is refused before anything is made", () => {
    const { pods, create, billing } = setup();
    expect(refusal(() => pods.create({ name: "p" }))[0]).toBe(422);
    expect(refusal(() => create({ registry: "reg-9" }))).toEqual([400, "registry: registry 'reg-9' does not exist (see GET /v2/registries)"]);
    expect(pods.all()).toEqual([]);
    expect(billing).toEqual([]);
  });
});

describe("reads", () => {
  test("list leaves out the terminated pods, all keeps them", () => {
    const { pods, create } = setup();
    const a = create();
    const b = create();
    pods.delete(a.id);
    expect(pods.list().map((p) => p.id)).toEqual([b.id]);
    expect(pods.all().map((p) => p.id)).toEqual([a.id, b.id]);
  });

  test("the pod that mounts a volume or pulls with a registry credential, a terminated one aside", () => {
    const vol = { id: "vol-1", dataCenter: "EU-RO-1" } as NetworkVolume;
    const { pods, create } = setup(0, { volume: () => vol, registryExists: () => true });
    const pod = create({ mounts: { network: [{ volumeId: "vol-1", path: "/d" }] }, registry: "reg-1" });
    create();
    expect(pods.using("volume", "vol-1")).toBe(`pod '${pod.id}'`);
    expect(pods.using("registry", "reg-1")).toBe(`pod '${pod.id}'`);
    expect(pods.using("volume", "reg-1")).toBeUndefined();
    expect(pods.using("registry", "vol-1")).toBeUndefined();
    pods.delete(pod.id);
    expect(pods.using("volume", "vol-1")).toBeUndefined();
  });

  test("the view moves the pod on to now; the create's view is the pod as it was made", () => {
    const { clock, pods, create } = setup();
    const pod = create();
    clock.t = 1_300;
    expect(pods.viewAsCreated(pod).status).toBe("PROVISIONING");
    expect(pods.view(pod).status).toBe("RUNNING");
  });

  test("the state file's records come back as they were", () => {
    const { clock, pods, create } = setup();
    const pod = create({ name: "kept" });
    clock.t = 1_300;
    pods.get(pod.id);
    const saved = JSON.parse(JSON.stringify(pods.snapshot()));
    expect(saved).toHaveLength(1);
    const { pods: again } = setup();
    again.restore(saved);
    expect(again.get(pod.id)).toMatchObject({ name: "kept", status: "RUNNING", startedAt: 1_300 });
  });
});

describe("an update", () => {
  test("a body that breaks the contract is a 422; a registry that does not exist is named", () => {
    const { pods, create } = setup();
    const pod = create();
    expect(refusal(() => pods.update(pod.id, { disk: "big" }))[0]).toBe(422);
    expect(refusal(() => pods.update(pod.id, { registry: "reg-9" }))).toEqual([400, "registry: registry 'reg-9' does not exist (see GET /v2/registries)"]);
    expect(refusal(() => pods.action(pod.id, { action: "fly" }))[0]).toBe(422);
  });

  test("fields left out keep their values: name, lock and global networking each change only when given", () => {
    const { pods, create } = setup();
    const pod = create({ name: "n", dataCenterIds: ["EU-RO-1"], globalNetworking: true });
    pods.update(pod.id, { locked: true });
    expect(pods.get(pod.id)).toMatchObject({ name: "n", locked: true, globalNetworkingWanted: true });
    pods.update(pod.id, { name: "m" });
    expect(pods.get(pod.id)).toMatchObject({ name: "m", locked: true, globalNetworkingWanted: true });
  });

  test("global networking is checked only when asked for", () => {
    const { pods, create } = setup();
    const pod = create({ dataCenterIds: ["EU-CZ-1"] });
    expect(pods.update(pod.id, { name: "x" }).name).toBe("x");
    expect(refusal(() => pods.update(pod.id, { globalNetworking: true }))).toEqual([
      400,
      "globalNetworking: the pod's data center EU-CZ-1 does not support global networking",
    ]);
  });

  test("a registry set to null is removed", () => {
    const { pods, create } = setup(0, { registryExists: () => true });
    const pod = create({ registry: "reg-1" });
    expect(pods.update(pod.id, { registry: null }).registry).toBeNull();
  });

  test("new ports get new public ports; other changes keep them", () => {
    const { pods, create } = setup();
    const pod = create({ ports: ["8888/http"] });
    const first = [...pod.publicPorts];
    expect(pods.update(pod.id, { env: { A: "1" } }).publicPorts).toEqual(first);
    expect(pods.update(pod.id, { ports: ["8888/http", "22/tcp"] }).publicPorts).toHaveLength(2);
  });

  test("a STARTING pod restarts at once (no delay), and a locked one refuses the change", () => {
    const { clock, pods, create } = setup(50);
    const pod = create();
    clock.t = 1_150;
    expect(pods.update(pod.id, { image: "img:2" })).toMatchObject({ status: "STARTING", statusAt: 1_150, restartAt: undefined });
    pods.update(pod.id, { locked: true });
    expect(refusal(() => pods.update(pod.id, { image: "img:3" }))[1]).toMatch(/is locked: a change of image/);
  });
});

describe("actions", () => {
  test("delete terminates a pod and stops its billing", () => {
    const { clock, pods, create, billing } = setup();
    const pod = create();
    clock.t = 2_000;
    expect(pods.delete(pod.id)).toMatchObject({ status: "TERMINATED", statusAt: 2_000 });
    expect(billing.at(-1)).toEqual([pod.id, false, 2_000]);
  });

  test("a lock holds back stop and restart only: a locked pod may be terminated, or started again", () => {
    const { clock, pods, create } = setup();
    const pod = create();
    clock.t = 1_300;
    pods.outside(pod.id, "stop");
    pods.update(pod.id, { locked: true });
    expect(pods.action(pod.id, { action: "start" }).status).toBe("STARTING");
    expect(pods.action(pod.id, { action: "terminate" }).status).toBe("TERMINATED");
  });

  test("start from ERROR does not bill again: an ERROR pod never stopped costing", () => {
    const { clock, pods, create, billing } = setup();
    const pod = create({ image: "bad" });
    clock.t = 1_300;
    expect(pods.action(pod.id, { action: "start" }).status).toBe("STARTING");
    expect(billing).toEqual([[pod.id, true, 1_000]]);
  });

  test("global networking keeps its address across restarts", () => {
    const { clock, pods, create } = setup();
    const pod = create({ dataCenterIds: ["EU-RO-1"], globalNetworking: true });
    const ip = pod.globalIp;
    clock.t = 1_300;
    pods.action(pod.id, { action: "restart" });
    clock.t = 1_500;
    pods.action(pod.id, { action: "restart" });
    expect(pods.get(pod.id).globalIp).toBe(ip);
  });
});
