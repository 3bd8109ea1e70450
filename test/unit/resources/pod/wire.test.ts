// The Pod on the wire, both ways (wire.ts): the create body carries only what the program set
// plus the provider's marks, the outputs are the live pod plus this resource's own settings, a
// refresh reports only the declared properties (and never a secret-able value kept only as a
// key), and an ambiguous create adopts only a listed pod that a create of the same body makes.
// (plan.test.ts holds the GPU preference list through createBody and inputsFromState.)
import type { PodCreateParams } from "../../../../src/client";
import { recordKey } from "../../../../src/resources/lifecycle/applied";
import { LOGICAL_NAME_KEY, OWNER_TOKEN_KEY, STACK_MARK_ENV } from "../../../../src/resources/lifecycle/owner";
import { checkPod, type LivePod, OWNER_ENV, type PodInputs } from "../../../../src/resources/pod/schema";
import {
  createBody,
  declarationFor,
  describeFixed,
  gpuOf,
  inputsFromState,
  matchesCreate,
  mountsBody,
  newestOf,
  ownedBy,
  ownerBaseOf,
  podOutputs,
} from "../../../../src/resources/pod/wire";
import { wirePod } from "../../../helpers/loopback";

const checked = (args: Record<string, unknown>): PodInputs => {
  const r = checkPod(undefined, args);
  expect(r.failures).toEqual([]);
  return r.inputs!;
};
const live = (over: Record<string, unknown> = {}): LivePod =>
  wirePod({ name: "trainer", image: "img:1", gpu: { id: "NVIDIA A40", count: 1 }, cloud: "SECURE", dataCenterId: "EU-RO-1", ...over }) as unknown as LivePod;

describe("mountsBody and gpuOf", () => {
  it("one mount kind, each entry whole, nothing else", () => {
    const extra = { persistent: { size: 50, path: "/data", extra: 1 } } as never;
    expect(mountsBody(extra)).toEqual({ persistent: { size: 50, path: "/data" } });
    const net = { network: [{ volumeId: "v1", path: "/vol", x: 2 }] } as never;
    expect(mountsBody(net)).toEqual({ network: [{ volumeId: "v1", path: "/vol" }] });
  });

  it("gpu: its id and count only", () => {
    expect(gpuOf({ id: "G", count: 2, extra: 1 } as { id: string; count: number })).toEqual({ id: "G", count: 2 });
  });
});

describe("createBody", () => {
  it("a minimal pod: name, image, the first GPU type, and the cloud (defaulted); nothing the program left out", () => {
    const body = createBody(checked({ name: "p", image: "img:1", gpu: { id: "NVIDIA A40" } }));
    expect(body).toEqual({ name: "p", image: "img:1", gpu: { id: "NVIDIA A40", count: 1 }, cloud: "SECURE" });
  });

  it("every field the program set, copied rather than shared", () => {
    // Each field the body can carry, as the program sets it (waitFor and the like are this resource's, not the body's).
    const set = {
      name: "p",
      image: "img:1",
      args: "python serve.py",
      disk: 40,
      ports: ["8888/http"],
      env: { A: "1" },
      registry: "reg-1",
      gpu: { id: "NVIDIA A40", count: 2 },
      mounts: { network: [{ volumeId: "v1", path: "/vol" }] },
      cloud: "COMMUNITY",
      dataCenterIds: ["EU-RO-1"],
      globalNetworking: true,
    };
    const inputs = checked({ ...set, waitFor: "PORTS", waitTimeoutSeconds: 60, desiredStatus: "RUNNING", locked: false });
    const body = createBody(inputs);
    expect(body).toEqual(set);
    body.env!.B = "2";
    body.ports!.push("22/tcp");
    body.dataCenterIds!.push("US-1");
    expect(inputs.env).toEqual({ A: "1" });
    expect(inputs.ports).toEqual(["8888/http"]);
    expect(inputs.dataCenterIds).toEqual(["EU-RO-1"]);
  });

  it("a CPU pod: its id and vCPU count, no gpu", () => {
    const body = createBody(checked({ name: "c", image: "i", cpu: { id: "cpu3c", vcpuCount: 4 } }));
    expect(body).toEqual({ name: "c", image: "i", cpu: { id: "cpu3c", vcpuCount: 4 }, cloud: "SECURE" });
  });

  it("the owner mark and the stack go into env beside the program's keys", () => {
    const inputs = { ...checked({ name: "p", image: "i", gpu: { id: "G" }, env: { A: "1" } }), __project: "proj", __stack: "dev" } as PodInputs;
    expect(createBody(inputs, "tok.abcd1234").env).toEqual({ A: "1", [OWNER_ENV]: "tok.abcd1234", [STACK_MARK_ENV]: "proj/dev" });
    expect(createBody(checked({ name: "p", image: "i", gpu: { id: "G" } }), "tok").env).toEqual({ [OWNER_ENV]: "tok" });
    expect(createBody(checked({ name: "p", image: "i", gpu: { id: "G" } }), "").env).toBeUndefined();
  });

  it("an empty dataCenterIds and globalNetworking false are not sent", () => {
    const body = createBody(checked({ name: "p", image: "i", gpu: { id: "G" }, dataCenterIds: [], globalNetworking: false }));
    expect(body).not.toHaveProperty("dataCenterIds");
    expect(body).not.toHaveProperty("globalNetworking");
  });
});

describe("matchesCreate", () => {
  const body: PodCreateParams = { name: "trainer", image: "img:1", gpu: { id: "NVIDIA A40", count: 1 }, cloud: "SECURE" };

  it("the same name, image, compute, cloud, placement and mount: the pod this create makes", () => {
    expect(matchesCreate(live(), body)).toBe(true);
  });

  it.each([
    ["another name", { name: "other" }],
    ["another image", { image: "img:2" }],
    ["another GPU type", { gpu: { id: "NVIDIA L4", count: 1 } }],
    ["another GPU count", { gpu: { id: "NVIDIA A40", count: 2 } }],
    ["no GPU", { gpu: null }],
    ["another cloud", { cloud: "COMMUNITY" }],
    ["a persistent volume the body does not ask for", { mounts: { persistent: { size: 20, path: "/w" } } }],
    ["a network volume the body does not ask for", { mounts: { network: [{ volumeId: "v1", path: "/v" }] } }],
  ])("%s: not it", (_, over) => {
    expect(matchesCreate(live(over), body)).toBe(false);
  });

  it("a GPU count left out of the body means one", () => {
    expect(matchesCreate(live(), { ...body, gpu: { id: "NVIDIA A40" } })).toBe(true);
    expect(matchesCreate(live({ gpu: { id: "NVIDIA A40", count: 2 } }), { ...body, gpu: { id: "NVIDIA A40" } })).toBe(false);
  });

  it("a cloud left out of the body means SECURE", () => {
    const { cloud: _cloud, ...noCloud } = body;
    expect(matchesCreate(live(), noCloud)).toBe(true);
    expect(matchesCreate(live({ cloud: "COMMUNITY" }), noCloud)).toBe(false);
  });

  it("a CPU pod matches on its id and vCPU count", () => {
    const cpuBody: PodCreateParams = { name: "trainer", image: "img:1", cpu: { id: "cpu3c", vcpuCount: 4 }, cloud: "SECURE" };
    const cpuPod = (over: Record<string, unknown>) => live({ gpu: null, cpu: { id: "cpu3c", vcpuCount: 4, memory: 8 }, ...over });
    expect(matchesCreate(cpuPod({}), cpuBody)).toBe(true);
    expect(matchesCreate(cpuPod({ cpu: { id: "cpu5c", vcpuCount: 4, memory: 8 } }), cpuBody)).toBe(false);
    expect(matchesCreate(cpuPod({ cpu: { id: "cpu3c", vcpuCount: 8, memory: 8 } }), cpuBody)).toBe(false);
    expect(matchesCreate(live(), cpuBody)).toBe(false);
  });

  it("placement: a pod outside the allowed data centers is not it; one not yet placed may be", () => {
    const placed = { ...body, dataCenterIds: ["US-1", "EU-RO-1"] };
    expect(matchesCreate(live(), placed)).toBe(true);
    expect(matchesCreate(live({ dataCenterId: "CA-2" }), placed)).toBe(false);
    expect(matchesCreate(live({ dataCenterId: null }), placed)).toBe(true);
    expect(matchesCreate(live({ dataCenterId: "CA-2" }), { ...body, dataCenterIds: [] })).toBe(true);
  });

  it("mounts: the persistent size and the network volume compared; paths are not", () => {
    const persistent = { ...body, mounts: { persistent: { size: 20, path: "/w" } } };
    expect(matchesCreate(live({ mounts: { persistent: { size: 20, path: "/other" } } }), persistent)).toBe(true);
    expect(matchesCreate(live({ mounts: { persistent: { size: 30, path: "/w" } } }), persistent)).toBe(false);
    const network = { ...body, mounts: { network: [{ volumeId: "v1", path: "/v" }] } };
    expect(matchesCreate(live({ mounts: { network: [{ volumeId: "v1", path: "/x" }] } }), network)).toBe(true);
    expect(matchesCreate(live({ mounts: { network: [{ volumeId: "v2", path: "/v" }] } }), network)).toBe(false);
    expect(matchesCreate(live({ mounts: null }), body)).toBe(true);
  });
});

describe("owner marks", () => {
  it("ownedBy: the token itself, or the token followed by a dot", () => {
    expect(ownedBy({ env: { [OWNER_ENV]: "tok" } }, "tok")).toBe(true);
    expect(ownedBy({ env: { [OWNER_ENV]: "tok.abcd1234" } }, "tok")).toBe(true);
    expect(ownedBy({ env: { [OWNER_ENV]: "token.abcd1234" } }, "tok")).toBe(false);
    expect(ownedBy({ env: {} }, "tok")).toBe(false);
    expect(ownedBy({ env: undefined as never }, "tok")).toBe(false);
  });

  it("ownerBaseOf: the token of a first create, the base after a replacement's mark, none for an unmarked pod", () => {
    expect(ownerBaseOf({ env: { [OWNER_ENV]: "tok.abcd1234" } })).toBe("tok");
    expect(ownerBaseOf({ env: { [OWNER_ENV]: "tok2.abcd1234.base" } })).toBe("base");
    expect(ownerBaseOf({ env: { [OWNER_ENV]: "" } })).toBeUndefined();
    expect(ownerBaseOf({ env: {} })).toBeUndefined();
  });
});

describe("newestOf and describeFixed", () => {
  it("the pod created last; none of none", () => {
    const a = live({ id: "a", createdAt: "2026-01-01T00:00:00.000Z" });
    const b = live({ id: "b", createdAt: "2026-01-02T00:00:00.000Z" });
    const c = live({ id: "c", createdAt: "2026-01-01T12:00:00.000Z" });
    expect(newestOf([a, b, c])?.id).toBe("b");
    expect(newestOf([b, a])?.id).toBe("b");
    expect(newestOf([])).toBeUndefined();
  });

  it("names what a create fixed: compute, cloud, mounts, data center", () => {
    expect(describeFixed(live({ mounts: { persistent: { size: 20, path: "/w" } } }))).toBe(
      'gpu: { id: "NVIDIA A40", count: 1 }, cloud: "SECURE", mounts.persistent.size: 20, dataCenterIds allowing "EU-RO-1"',
    );
    expect(describeFixed(live({ gpu: null, cpu: { id: "cpu3c", vcpuCount: 2, memory: 4 }, mounts: { network: [{ volumeId: "v1", path: "/v" }] }, dataCenterId: null }))).toBe(
      'cpu: { id: "cpu3c", vcpuCount: 2 }, cloud: "SECURE", mounts.network[0].volumeId: "v1"',
    );
  });
});

describe("declarationFor, podOutputs and inputsFromState", () => {
  it("the declaration: the keys set (not the hidden ones or adopt), env keys, and only keys of values that may be secret", () => {
    const inputs = {
      ...checked({ name: "p", image: "i", gpu: { id: ["A", "B"] }, env: { Z: "1", A: "2" }, maxHourlyCost: 1.5 }),
      __project: "x",
      adopt: "pod-9",
    } as PodInputs;
    const d = declarationFor(inputs);
    expect(d.keys).toEqual([...d.keys].sort());
    expect(d.keys).toEqual(expect.arrayContaining(["env", "gpu", "image", "maxHourlyCost", "name"]));
    expect(d.keys.some((k) => k.startsWith("__") || k === "adopt")).toBe(false);
    expect(d.envKeys).toEqual(["A", "Z"]);
    expect(d.gpuIdsKey).toBe(recordKey(["A", "B"]));
    expect(d.maxHourlyCostKey).toBe(recordKey(1.5));
    expect(JSON.stringify(d)).not.toContain("1.5");
    expect(d.name).toBeUndefined();
    const one = declarationFor(checked({ name: "p", image: "i", gpu: { id: "A" } }));
    expect(one).not.toHaveProperty("gpuIdsKey");
    expect(one).not.toHaveProperty("maxHourlyCostKey");
  });

  it("an auto-name is kept in the declaration; a given name is not", () => {
    const token = "0123456789abcdef";
    const auto = { ...checked({ name: "web-0123456", image: "i", gpu: { id: "A" } }), [OWNER_TOKEN_KEY]: token, [LOGICAL_NAME_KEY]: "web" } as PodInputs;
    expect(declarationFor(auto).name).toBe("web-0123456");
    const given = { ...auto, name: "mine" } as PodInputs;
    expect(declarationFor(given).name).toBeUndefined();
  });

  it("outputs: the live pod, copied, with this resource's own settings and the catalog price", () => {
    const inputs = checked({ name: "trainer", image: "img:1", gpu: { id: "NVIDIA A40" }, dataCenterIds: ["EU-RO-1"], waitFor: "PORTS" });
    const pod = live({ status: "RUNNING", env: { K: "v" }, ports: ["22/tcp"] });
    const declaration = { ...declarationFor(inputs), hourlyCost: 0.44 };
    const out = podOutputs(pod, inputs, declaration);
    expect(out).toMatchObject({
      id: pod.id,
      name: "trainer",
      status: "RUNNING",
      gpu: { id: "NVIDIA A40", count: 1 },
      hourlyCost: 0.44,
      dataCenterIds: ["EU-RO-1"],
      desiredStatus: "RUNNING",
      waitFor: "PORTS",
      waitTimeoutSeconds: inputs.waitTimeoutSeconds,
      __declared: declaration,
    });
    expect(out).not.toHaveProperty("cpu");
    out.env.K = "changed";
    out.ports.push("x");
    expect(pod.env.K).toBe("v");
    expect(pod.ports).toEqual(["22/tcp"]);
    const cpuOut = podOutputs(live({ gpu: null, cpu: { id: "cpu3c", vcpuCount: 2, memory: 4, extra: 1 } }), checked({ name: "c", image: "i", cpu: { id: "cpu3c", vcpuCount: 2 } }));
    expect(cpuOut.cpu).toEqual({ id: "cpu3c", vcpuCount: 2, memory: 4 });
    expect(cpuOut).not.toHaveProperty("gpu");
    expect(cpuOut).not.toHaveProperty("hourlyCost");
    expect(cpuOut).not.toHaveProperty("dataCenterIds");
  });

  it("a refresh reports the declared properties as the pod has them, and only the declared env keys", () => {
    const inputs = checked({ name: "trainer", image: "img:1", gpu: { id: "NVIDIA A40" }, env: { A: "1", GONE: "x" }, disk: 30 });
    const pod = live({ image: "img:2", disk: 50, args: "changed", ports: ["1/tcp"], env: { A: "2", COMPUTEPLATFORM_POD_ID: "p" } });
    const reported = inputsFromState(podOutputs(pod, inputs), undefined);
    expect(reported).toMatchObject({ name: "trainer", image: "img:2", disk: 50, env: { A: "2" }, cloud: "SECURE" });
    expect(reported).not.toHaveProperty("args");
    expect(reported).not.toHaveProperty("ports");
    expect(reported).not.toHaveProperty("registry");
    expect(reported).not.toHaveProperty("mounts");
    expect(reported).not.toHaveProperty("cpu");
  });

  it("declared args, ports, registry and mounts are reported; mounts only when the pod has one", () => {
    const inputs = checked({ name: "t", image: "i", gpu: { id: "A" }, args: "a", ports: ["22/tcp"], registry: "r1", mounts: { persistent: { size: 20, path: "/w" } } });
    const pod = live({ name: "t", image: "i", gpu: { id: "A", count: 1 }, args: "b", ports: ["8888/http"], registry: "r2", mounts: { persistent: { size: 30, path: "/w" } } });
    expect(inputsFromState(podOutputs(pod, inputs), undefined)).toMatchObject({ args: "b", ports: ["8888/http"], registry: "r2", mounts: { persistent: { size: 30, path: "/w" } } });
    expect(inputsFromState(podOutputs({ ...pod, mounts: {} } as LivePod, inputs), undefined)).not.toHaveProperty("mounts");
  });

  it("the name: the auto-name last applied, else the old state's, else the live one (an outside rename is undone)", () => {
    const inputs = checked({ name: "trainer", image: "img:1", gpu: { id: "NVIDIA A40" } });
    const outs = podOutputs(live({ name: "renamed-outside" }), inputs);
    expect(inputsFromState(outs, { name: "trainer" }).name).toBe("trainer");
    expect(inputsFromState(outs, undefined).name).toBe("renamed-outside");
    const kept = { ...outs, __declared: { ...outs.__declared, name: "auto-1234567" } };
    expect(inputsFromState(kept, { name: "trainer" }).name).toBe("auto-1234567");
  });

  it("a CPU pod reports its id and vCPU count; no env key declared reports no env", () => {
    const inputs = checked({ name: "c", image: "i", cpu: { id: "cpu3c", vcpuCount: 2 } });
    const reported = inputsFromState(podOutputs(live({ name: "c", image: "i", gpu: null, cpu: { id: "cpu3c", vcpuCount: 2, memory: 4 }, env: { X: "1" } }), inputs), undefined);
    expect(reported.cpu).toEqual({ id: "cpu3c", vcpuCount: 2 });
    expect(reported).not.toHaveProperty("gpu");
    expect(reported).not.toHaveProperty("env");
  });
});
