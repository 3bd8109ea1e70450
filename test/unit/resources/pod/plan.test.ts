import type { Pod as WirePod } from "../../../../src/client/schemas";
import { UNKNOWN } from "../../../../src/resources/inputs/check";
import { nextEnv, planKnownPodChange, planPodChange, POD_CHANGE_VERDICTS } from "../../../../src/resources/pod/plan";
import { lockedRefusal, patchRestarts, planUpdate, podPatch, previewRefusal, RESTARTING_FIELDS } from "../../../../src/resources/pod/update-plan";
import { createBody, inputsFromState, podOutputs } from "../../../../src/resources/pod/wire";
import type { PodOutputs } from "../../../../src/resources/pod/outputs";
import type { PodInputs } from "../../../../src/resources/pod/schema";
import { isReady } from "../../../../src/resources/pod/status";
import { docsTable } from "../../../helpers/docs-tables";
import { checked, cpuPod, gpuPod, liveFor, persistentPod, PLATFORM_ENV, plainPod } from "../../../helpers/pod-plan";

/** Old outputs of a pod created from `raw`, and the plan to `change`d inputs. */
function plan(raw: Record<string, unknown>, change: Record<string, unknown>, live: Partial<WirePod> = {}) {
  const before = checked(raw);
  const olds: PodOutputs = podOutputs(liveFor(before, live), before);
  const news = checked({ ...raw, ...change }, before as unknown as Record<string, unknown>);
  return { ...planPodChange(olds, news), olds, news };
}

describe("Pod plan: one row per rule of the issue", () => {
  test.each<[string, Record<string, unknown>, Record<string, unknown>, string[], string[]]>([
    // replace
    ["gpu type", gpuPod, { gpu: { id: "NVIDIA_H100" } }, ["gpu"], []],
    ["gpu count", gpuPod, { gpu: { id: "NVIDIA_A100", count: 2 } }, ["gpu"], []],
    ["gpu preference list without the type the pod got", gpuPod, { gpu: { id: ["NVIDIA_H100", "NVIDIA_L40S"] } }, ["gpu"], []],
    ["gpu preference list that keeps the type, with another count", gpuPod, { gpu: { id: ["NVIDIA_A100"], count: 3 } }, ["gpu"], []],
    ["gpu to cpu", plainPod, { gpu: undefined, cpu: { id: "cpu3c", vcpuCount: 2 } }, ["gpu", "cpu"], []],
    ["cpu vcpuCount", cpuPod, { cpu: { id: "cpu3c", vcpuCount: 8 } }, ["cpu"], []],
    ["cpu flavor", cpuPod, { cpu: { id: "cpu5c", vcpuCount: 4 } }, ["cpu"], []],
    ["cloud", gpuPod, { cloud: "COMMUNITY" }, ["cloud"], []],
    ["dataCenterIds no longer allow the pod's data center (EU-RO-1)", gpuPod, { dataCenterIds: ["US-TX-3"] }, ["dataCenterIds"], []],
    ["a mount appears", plainPod, { mounts: { network: [{ volumeId: "vol-1", path: "/w" }] } }, ["mounts"], []],
    ["a mount disappears", gpuPod, { mounts: undefined }, ["mounts"], []],
    ["the mount kind changes", gpuPod, { mounts: { persistent: { size: 20, path: "/w" } } }, ["mounts"], []],
    ["another network volumeId", gpuPod, { mounts: { network: [{ volumeId: "vol-2", path: "/workspace" }] } }, ["mounts"], []],
    ["a smaller persistent size (a PATCH is answered 400)", persistentPod, { mounts: { persistent: { size: 10, path: "/data" } } }, ["mounts"], []],
    // update in place
    ["gpu preference list that still holds the type the pod got", gpuPod, { gpu: { id: ["NVIDIA_H100", "NVIDIA_A100"] } }, [], ["gpu"]],
    ["maxHourlyCost", gpuPod, { maxHourlyCost: 3 }, [], ["maxHourlyCost"]],
    ["name", gpuPod, { name: "web-2" }, [], ["name"]],
    ["image", gpuPod, { image: "img:2" }, [], ["image"]],
    ["args", gpuPod, { args: "--other" }, [], ["args"]],
    ["args removed (reset to none)", gpuPod, { args: undefined }, [], ["args"]],
    ["disk", gpuPod, { disk: 80 }, [], ["disk"]],
    ["ports", gpuPod, { ports: ["8888/http"] }, [], ["ports"]],
    ["env value", gpuPod, { env: { A: "1", B: "3" } }, [], ["env"]],
    ["env key added", gpuPod, { env: { A: "1", B: "2", C: "3" } }, [], ["env"]],
    ["env key removed", gpuPod, { env: { A: "1" } }, [], ["env"]],
    ["registry", gpuPod, { registry: "reg-2" }, [], ["registry"]],
    ["registry removed", gpuPod, { registry: undefined }, [], ["registry"]],
    ["network mount path", gpuPod, { mounts: { network: [{ volumeId: "vol-1", path: "/data" }] } }, [], ["mounts"]],
    ["a larger persistent size (a PATCH grows it)", persistentPod, { mounts: { persistent: { size: 30, path: "/data" } } }, [], ["mounts"]],
    ["dataCenterIds drop one the pod does not run in", gpuPod, { dataCenterIds: ["EU-RO-1"] }, [], ["dataCenterIds"]],
    ["dataCenterIds add one", gpuPod, { dataCenterIds: ["EU-RO-1", "US-TX-3", "CA-MTL-1"] }, [], ["dataCenterIds"]],
    ["dataCenterIds removed (anywhere)", gpuPod, { dataCenterIds: undefined }, [], ["dataCenterIds"]],
    ["persistent mount path", persistentPod, { mounts: { persistent: { size: 20, path: "/other" } } }, [], ["mounts"]],
    ["locked", gpuPod, { locked: true }, [], ["locked"]],
    ["globalNetworking", gpuPod, { globalNetworking: true }, [], ["globalNetworking"]],
    ["desiredStatus", gpuPod, { desiredStatus: "EXITED" }, [], ["desiredStatus"]],
    ["waitFor", gpuPod, { waitFor: "PORTS" }, [], ["waitFor"]],
    ["waitTimeoutSeconds", gpuPod, { waitTimeoutSeconds: 60 }, [], ["waitTimeoutSeconds"]],
    // no diff
    ["nothing changed", gpuPod, {}, [], []],
    ["env keys in another order", gpuPod, { env: { B: "2", A: "1" } }, [], []],
    ["ports in another order", gpuPod, { ports: ["22/tcp", "8888/http"] }, [], []],
    ["dataCenterIds in another order", gpuPod, { dataCenterIds: ["US-TX-3", "EU-RO-1"] }, [], []],
    ["dataCenterIds kept in state in any order, unchanged", { ...gpuPod, dataCenterIds: ["US-TX-3", "EU-RO-1"] }, {}, [], []],
    ["a pod declared without dataCenterIds, unchanged", { ...gpuPod, dataCenterIds: undefined }, {}, [], []],
    ["a persistent mount unchanged", persistentPod, {}, [], []],
    ["defaults written out", gpuPod, { cloud: "SECURE", gpu: { id: "NVIDIA_A100", count: 1 }, locked: false, desiredStatus: "RUNNING", waitFor: "RUNNING", waitTimeoutSeconds: 600, globalNetworking: false }, [], []],
    ["disk left out later (the pod keeps its size)", gpuPod, { disk: undefined }, [], []],
    ["disk written as the platform's default", { ...gpuPod, disk: undefined }, { disk: 20 }, [], []],
    // unknown at preview
    ["unknown image", gpuPod, { image: UNKNOWN }, [], ["image"]],
    ["unknown gpu", gpuPod, { gpu: UNKNOWN }, ["gpu"], []],
    ["unknown gpu id", gpuPod, { gpu: { id: UNKNOWN, count: 1 } }, ["gpu"], []],
    ["unknown gpu type in a preference list that holds the pod's type", gpuPod, { gpu: { id: ["NVIDIA_A100", UNKNOWN], count: 1 } }, [], ["gpu"]],
    ["unknown persistent size", persistentPod, { mounts: { persistent: { size: UNKNOWN, path: "/data" } } }, ["mounts"], []],
    ["unknown network volumeId", gpuPod, { mounts: { network: [{ volumeId: UNKNOWN, path: "/workspace" }] } }, ["mounts"], []],
    ["unknown mount path", gpuPod, { mounts: { network: [{ volumeId: "vol-1", path: UNKNOWN }] } }, [], ["mounts"]],
    ["unknown env value", gpuPod, { env: { A: "1", B: UNKNOWN } }, [], ["env"]],
    ["unknown dataCenterIds", gpuPod, { dataCenterIds: UNKNOWN }, ["dataCenterIds"], []],
  ])("%s", (_label, raw, change, replaces, updates) => {
    const p = plan(raw, change);
    expect({ replaces: p.replaces, updates: p.updates }).toEqual({ replaces, updates });
  });

  test("env keys the platform injects are never compared", () => {
    const p = plan(gpuPod, {}, { env: { A: "1", B: "2", COMPUTEPLATFORM_POD_ID: "pod-1", OTHER_INJECTED: "x" } });
    expect(p.updates).toEqual([]);
  });

  test("a provider upgrade alone (state without __declared) shows no diff", () => {
    const before = checked(gpuPod);
    const olds = podOutputs(liveFor(before), before) as Partial<PodOutputs>;
    delete olds.__declared;
    expect(planPodChange(olds, before)).toEqual({ replaces: [], updates: [] });
  });

  test("drift seen by refresh is a change: image, a declared env value, a stopped pod", () => {
    expect(plan(gpuPod, {}, { image: "img:hacked" }).updates).toEqual(["image"]);
    expect(plan(gpuPod, {}, { env: { A: "x", B: "2", ...PLATFORM_ENV } }).updates).toEqual(["env"]);
    expect(plan(gpuPod, {}, { status: "EXITED" }).updates).toEqual(["desiredStatus"]);
    expect(plan(gpuPod, {}, { status: "ERROR" }).updates).toEqual(["desiredStatus"]);
  });

  test("a pod meant to be EXITED that is EXITED (or failed) is where it should be", () => {
    expect(plan(gpuPod, {}, { status: "EXITED" }).updates).toEqual(["desiredStatus"]);
    const before = checked({ ...gpuPod, desiredStatus: "EXITED" });
    const olds = podOutputs(liveFor(before, { status: "EXITED" }), before);
    expect(planPodChange(olds, before).updates).toEqual([]);
    expect(planPodChange({ ...olds, status: "ERROR" }, before).updates).toEqual([]);
    expect(planPodChange({ ...olds, status: "RUNNING" }, before).updates).toEqual(["desiredStatus"]);
  });
});

describe("what a plan leaves alone, and what it takes as given", () => {
  test("args, ports and a registry never declared are not compared with what the platform reports (an image's own args, a template's registry)", () => {
    const bare = { ...gpuPod, args: undefined, ports: undefined, registry: undefined };
    expect(plan(bare, {}, { args: "--from-image", registry: "reg-template" }).updates).toEqual([]);
  });

  test("args or a registry removed while the pod already has none is no change", () => {
    expect(plan(gpuPod, { args: undefined, registry: undefined }, { args: "", registry: null }).updates).toEqual([]);
  });

  test("a network mount list the platform reports empty is no mount", () => {
    expect(plan(plainPod, {}, { mounts: { network: [] } })).toMatchObject({ replaces: [], updates: [] });
  });

  test("a mounts value wholly unknown when planned is a replace, even for a pod without mounts", () => {
    const p = plan(plainPod, {});
    expect(planKnownPodChange(p.olds, { ...p.news, mounts: UNKNOWN as never })).toEqual({ replaces: ["mounts"], updates: [] });
  });

  test("a maxHourlyCost unknown when planned is a change, whether state keeps a key of it, the value (0.1.x) or none", () => {
    const capped = plan({ ...gpuPod, maxHourlyCost: 3 }, {});
    const { maxHourlyCostKey: _key, ...legacy } = capped.olds.__declared;
    const unknownCap = (olds: PodOutputs) => planKnownPodChange(olds, { ...capped.news, maxHourlyCost: UNKNOWN as never }).updates;
    expect(unknownCap(capped.olds)).toEqual(["maxHourlyCost"]);
    expect(unknownCap({ ...capped.olds, __declared: { ...legacy, maxHourlyCost: 3 } })).toEqual(["maxHourlyCost"]);
    expect(unknownCap(plan(gpuPod, {}).olds)).toEqual(["maxHourlyCost"]);
  });

  test("inputs that leave out cloud, locked and globalNetworking mean SECURE, unlocked and off; state without locked means unlocked", () => {
    const p = plan(gpuPod, {});
    const { cloud: _c, locked: _l, globalNetworking: _g, ...news } = p.news;
    expect(planKnownPodChange(p.olds, news as PodInputs)).toEqual({ replaces: [], updates: [] });
    const { locked: _ol, ...olds } = p.olds;
    expect(planKnownPodChange(olds, p.news)).toEqual({ replaces: [], updates: [] });
  });

  test("state an earlier release wrote without __declared reads global networking from the pod, and a pod without env or that field as none and off", () => {
    const on = checked({ ...gpuPod, globalNetworking: true });
    const olds = podOutputs(liveFor(on), on) as Partial<PodOutputs>;
    delete olds.__declared;
    expect(planPodChange(olds, on)).toEqual({ replaces: [], updates: [] });
    const bare = checked({ ...gpuPod, env: undefined });
    const old = podOutputs(liveFor(bare), bare) as Partial<PodOutputs>;
    delete old.__declared;
    delete old.globalNetworking;
    expect(planPodChange(old, bare)).toEqual({ replaces: [], updates: [] });
  });

  test("a pod whose status is not in state is compared by its declared desiredStatus alone", () => {
    const p = plan(gpuPod, {}, { status: "EXITED" });
    const { status: _s, ...olds } = p.olds;
    expect(planKnownPodChange(olds, p.news).updates).toEqual([]);
    expect(planKnownPodChange(olds, { ...p.news, desiredStatus: "EXITED" }).updates).toEqual(["desiredStatus"]);
  });

  test("no ports in state and none declared is no change", () => {
    const p = plan({ ...gpuPod, ports: [] }, {});
    const { ports: _p, ...olds } = p.olds;
    expect(planKnownPodChange(olds, p.news)).toEqual({ replaces: [], updates: [] });
    expect(planKnownPodChange(olds, { ...p.news, ports: ["22/tcp"] }).updates).toEqual(["ports"]);
  });
});

describe("Pod patch: only the changed fields, never one the platform answers 400", () => {
  test.each<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]>([
    ["image", gpuPod, { image: "img:2" }, { image: "img:2" }],
    ["rename: the new name alone", gpuPod, { name: "web-2" }, { name: "web-2" }],
    ["disk: the new size alone", gpuPod, { disk: 80 }, { disk: 80 }],
    ["ports: the whole new list", gpuPod, { ports: ["8888/http"] }, { ports: ["8888/http"] }],
    ["args removed", gpuPod, { args: undefined }, { args: "" }],
    ["registry removed", gpuPod, { registry: undefined }, { registry: null }],
    ["mount path: the whole entry, same volume", gpuPod, { mounts: { network: [{ volumeId: "vol-1", path: "/d" }] } }, { mounts: { network: [{ volumeId: "vol-1", path: "/d" }] } }],
    ["persistent size grown: the whole entry", persistentPod, { mounts: { persistent: { size: 30, path: "/data" } } }, { mounts: { persistent: { size: 30, path: "/data" } } }],
    ["dataCenterIds alone send no PATCH (read at creation only)", gpuPod, { dataCenterIds: ["EU-RO-1"] }, {}],
    ["persistent path: same size", persistentPod, { mounts: { persistent: { size: 20, path: "/o" } } }, { mounts: { persistent: { size: 20, path: "/o" } } }],
    ["env: declared keys, platform keys kept", gpuPod, { env: { A: "9" } }, { env: { A: "9", ...PLATFORM_ENV } }],
    ["locked and globalNetworking", gpuPod, { locked: true, globalNetworking: true }, { locked: true, globalNetworking: true }],
    ["desiredStatus alone sends no PATCH", gpuPod, { desiredStatus: "EXITED" }, {}],
    ["readiness settings alone send no PATCH", gpuPod, { waitFor: "PORTS", waitTimeoutSeconds: 30 }, {}],
  ])("%s", (_label, raw, change, body) => {
    const p = plan(raw, change);
    expect(podPatch(p.olds, p.news)).toEqual(body);
  });

  test("a plan with a replace refuses to make a PATCH", () => {
    const p = plan(gpuPod, { mounts: { network: [{ volumeId: "vol-2", path: "/workspace" }] } });
    expect(() => podPatch(p.olds, p.news)).toThrow(/mounts needs a new pod/);
  });

  test("a PATCH refused for several replaces names each of them, apart", () => {
    const p = plan(gpuPod, { gpu: { id: "NVIDIA_H100" }, cloud: "COMMUNITY" });
    expect(() => podPatch(p.olds, p.news)).toThrow("a change of gpu, cloud needs a new pod, not a PATCH");
  });

  test("nextEnv drops the keys the user removed, keeps foreign ones", () => {
    expect(nextEnv({ A: "1", B: "2", X: "p" }, ["A", "B"], { B: "3" })).toEqual({ B: "3", X: "p" });
  });
});

describe("readiness", () => {
  const inputs = checked({ ...gpuPod, waitFor: "PORTS" });
  test("RUNNING is ready for waitFor RUNNING; PORTS needs every TCP port mapped", () => {
    const live = liveFor(inputs);
    expect(isReady(live, "PORTS")).toBe(true);
    const unmapped = { ...live, runtime: { ports: [{ private: 8888, public: null, type: "http" }, { private: 22, public: null, type: "tcp" }] } };
    expect(isReady(unmapped, "RUNNING")).toBe(true);
    expect(isReady(unmapped, "PORTS")).toBe(false);
    expect(isReady({ ...live, status: "STARTING", runtime: null }, "RUNNING")).toBe(false);
  });
});

describe("docs/pod.md's update-or-replace table says what the plan does", () => {
  /** Each docs row (its first cell) and changes it covers: [property, base declaration, change]. */
  const ROWS: Record<string, [string, Record<string, unknown>, Record<string, unknown>][]> = {
    "`gpu`: a new `count`, or an `id` (or preference list) without the GPU type the pod got; `cpu` (`id`, `vcpuCount`)": [
      ["gpu", gpuPod, { gpu: { id: "NVIDIA_H100" } }],
      ["gpu", gpuPod, { gpu: { id: ["NVIDIA_H100", "NVIDIA_L40S"] } }],
      ["gpu", gpuPod, { gpu: { id: "NVIDIA_A100", count: 2 } }],
      ["gpu", gpuPod, { gpu: { id: ["NVIDIA_H100", "NVIDIA_A100"], count: 2 } }],
      ["cpu", cpuPod, { cpu: { id: "cpu5c", vcpuCount: 4 } }],
      ["cpu", cpuPod, { cpu: { id: "cpu3c", vcpuCount: 8 } }],
    ],
    "`cloud`": [["cloud", gpuPod, { cloud: "COMMUNITY" }]],
    "`dataCenterIds` no longer allowing the pod's data center": [["dataCenterIds", gpuPod, { dataCenterIds: ["US-TX-3"] }]],
    "`dataCenterIds`, any other edit (as a set; order does not count)": [
      ["dataCenterIds", gpuPod, { dataCenterIds: ["EU-RO-1"] }],
      ["dataCenterIds", gpuPod, { dataCenterIds: undefined }],
    ],
    "`mounts`: the kind (none, `persistent`, `network`), a network mount's `volumeId`, a smaller persistent `size`": [
      ["mounts", gpuPod, { mounts: { persistent: { size: 20, path: "/w" } } }],
      ["mounts", gpuPod, { mounts: { network: [{ volumeId: "vol-2", path: "/workspace" }] } }],
      ["mounts", persistentPod, { mounts: { persistent: { size: 10, path: "/data" } } }],
    ],
    "`mounts`: the `path`, a larger persistent `size`": [
      ["mounts", gpuPod, { mounts: { network: [{ volumeId: "vol-1", path: "/data" }] } }],
      ["mounts", persistentPod, { mounts: { persistent: { size: 40, path: "/data" } } }],
    ],
    "`image`, `args`, `disk`, `ports` (order does not count), `env` (only the keys you declare), `registry`": [
      ["image", gpuPod, { image: "img:2" }],
      ["args", gpuPod, { args: "--x" }],
      ["disk", gpuPod, { disk: 80 }],
      ["ports", gpuPod, { ports: ["8888/http"] }],
      ["env", gpuPod, { env: { A: "9" } }],
      ["registry", gpuPod, { registry: "reg-2" }],
    ],
    "`name`, `locked`": [
      ["name", gpuPod, { name: "other" }],
      ["locked", gpuPod, { locked: true }],
    ],
    "`globalNetworking`": [["globalNetworking", gpuPod, { globalNetworking: true }]],
    "`desiredStatus` (`RUNNING` / `EXITED`)": [["desiredStatus", gpuPod, { desiredStatus: "EXITED" }]],
    "`waitFor`, `waitTimeoutSeconds`, `maxHourlyCost`": [
      ["waitFor", gpuPod, { waitFor: "PORTS" }],
      ["waitTimeoutSeconds", gpuPod, { waitTimeoutSeconds: 30 }],
      ["maxHourlyCost", gpuPod, { maxHourlyCost: 5 }],
    ],
    "`gpu`: a new preference list in `id` that still holds the GPU type the pod got": [
      ["gpu", gpuPod, { gpu: { id: ["NVIDIA_H100", "NVIDIA_A100"] } }],
      ["gpu", gpuPod, { gpu: { id: ["NVIDIA_A100", "NVIDIA_L40S"], count: 1 } }],
    ],
  };
  const table = docsTable("Pod");

  test("every docs row is tied to changes here, and every row here is in the docs", () => {
    expect(table.map((r) => r.row).sort()).toEqual(Object.keys(ROWS).sort());
  });

  test("a property wholly unknown at preview is planned as the worst case the table gives it (POD_CHANGE_VERDICTS)", () => {
    const worst: Record<string, string> = {};
    for (const { row, verdict } of table) {
      for (const [property] of ROWS[row] ?? []) if (worst[property] !== "replace") worst[property] = verdict;
    }
    expect(POD_CHANGE_VERDICTS).toEqual(worst);
    for (const [property, verdict] of Object.entries(worst)) {
      const p = plan(gpuPod, { [property]: UNKNOWN });
      expect({ property, replaced: p.replaces.includes(property), updated: p.updates.includes(property) }).toEqual({
        property,
        replaced: verdict === "replace",
        updated: verdict === "update",
      });
    }
  });

  test.each(table)("$row: $verdict", ({ row, verdict }) => {
    for (const [property, raw, change] of ROWS[row] ?? []) {
      // Each property named in backticks at the start of the row is one this row covers.
      expect(row).toContain(`\`${property}\``);
      const p = plan(raw, change);
      if (verdict === "replace") expect(p.replaces).toContain(property);
      else expect({ replaces: p.replaces, updated: p.updates.includes(property) }).toEqual({ replaces: [], updated: true });
    }
  });
});

describe("a GPU preference list", () => {
  const listed = { ...gpuPod, gpu: { id: ["NVIDIA_A100", "NVIDIA_L40S"], count: 1 } };

  test("the same list again is no change; state keeps only a key of the list (it may be secret), a refresh the type the pod got", () => {
    const p = plan(listed, {});
    expect([p.replaces, p.updates]).toEqual([[], []]);
    expect(p.olds.gpu).toEqual({ id: "NVIDIA_A100", count: 1 });
    expect(JSON.stringify(p.olds.__declared)).not.toContain("NVIDIA_L40S");
    expect(p.olds.__declared.gpuIdsKey).toMatch(/^[0-9a-f]{16}$/);
    expect(inputsFromState(p.olds, p.olds).gpu).toEqual({ id: "NVIDIA_A100", count: 1 });
  });

  test("state of 0.1.x, which kept the list itself, still compares and refreshes", () => {
    const p = plan(listed, {});
    const { gpuIdsKey: _key, ...legacy } = p.olds.__declared;
    const olds = { ...p.olds, __declared: { ...legacy, gpuIds: ["NVIDIA_A100", "NVIDIA_L40S"] } };
    expect(planKnownPodChange(olds, p.news)).toEqual({ replaces: [], updates: [] });
    expect(inputsFromState(olds, olds).gpu).toEqual({ id: ["NVIDIA_A100", "NVIDIA_L40S"], count: 1 });
  });

  test("a new list that keeps the type the pod got is recorded without a request", () => {
    const p = plan(listed, { gpu: { id: ["NVIDIA_H100", "NVIDIA_A100"], count: 1 } });
    const steps = planUpdate("pod-1", p.olds, p.news);
    expect(steps).toMatchObject({ recordOnly: true, patch: {}, declaration: { gpuIdsKey: expect.stringMatching(/^[0-9a-f]{16}$/) } });
    expect(planKnownPodChange(podOutputs(p.olds as any, p.news, steps.declaration), p.news)).toEqual({ replaces: [], updates: [] });
  });

  test("the create body asks for the choice being tried, the first by default", () => {
    const inputs = checked(listed);
    expect(createBody(inputs).gpu).toEqual({ id: "NVIDIA_A100", count: 1 });
    expect(createBody(inputs, undefined, "NVIDIA_L40S").gpu).toEqual({ id: "NVIDIA_L40S", count: 1 });
  });
});

describe("an update's requests", () => {
  test("record-only only when every change is one the platform does not hold: an image with dataCenterIds still PATCHes", () => {
    const both = plan(gpuPod, { image: "img:2", dataCenterIds: ["EU-RO-1"] });
    const steps = planUpdate("pod-1", both.olds, both.news);
    expect(steps).toMatchObject({ recordOnly: false, patch: { image: "img:2" } });
    const dcs = plan(gpuPod, { dataCenterIds: ["EU-RO-1"] });
    expect(planUpdate("pod-1", dcs.olds, dcs.news)).toMatchObject({ recordOnly: true, patch: {} });
    const nothing = plan(gpuPod, {});
    expect(planUpdate("pod-1", nothing.olds, nothing.news).recordOnly).toBe(false);
  });

  test("the wait's bound alone, or maxHourlyCost alone, is recorded without a request (the platform holds neither)", () => {
    for (const change of [{ waitTimeoutSeconds: 60 }, { maxHourlyCost: 4 }]) {
      const p = plan(gpuPod, change);
      expect(planUpdate("pod-1", p.olds, p.news)).toMatchObject({ recordOnly: true, patch: {} });
    }
  });

  test("a changed maxHourlyCost is an update, the same one none (state keeps a key of it; 0.1.x state the value)", () => {
    const capped = { ...gpuPod, maxHourlyCost: 3 };
    expect(plan(capped, {}).updates).toEqual([]);
    expect(plan(capped, { maxHourlyCost: 4 }).updates).toEqual(["maxHourlyCost"]);
    expect(plan(capped, { maxHourlyCost: undefined }).updates).toEqual(["maxHourlyCost"]);
    expect(plan(capped, { maxHourlyCost: UNKNOWN }).updates).toEqual(["maxHourlyCost"]);
    const p = plan(capped, {});
    const { maxHourlyCostKey: _key, ...legacy } = p.olds.__declared;
    const olds = { ...p.olds, __declared: { ...legacy, maxHourlyCost: 3 } };
    expect(planKnownPodChange(olds, p.news).updates).toEqual([]);
    expect(planKnownPodChange(olds, { ...p.news, maxHourlyCost: 4 }).updates).toEqual(["maxHourlyCost"]);
    expect(planKnownPodChange(olds, { ...p.news, maxHourlyCost: undefined }).updates).toEqual(["maxHourlyCost"]);
  });

  test("the PATCH fields that restart a running container by themselves are image, args, disk, ports, env, registry and mounts", () => {
    expect([...RESTARTING_FIELDS].sort()).toEqual(["args", "disk", "env", "image", "mounts", "ports", "registry"]);
    for (const field of RESTARTING_FIELDS) expect(patchRestarts({ [field]: "x" } as any)).toBe(true);
    expect(patchRestarts({ name: "n", locked: true, globalNetworking: true })).toBe(false);
    const image = plan(gpuPod, { image: "img:2" });
    expect(planUpdate("pod-1", image.olds, image.news)).toMatchObject({ restarts: true, restart: false });
    const rename = plan(gpuPod, { name: "web-2" });
    expect(planUpdate("pod-1", rename.olds, rename.news)).toMatchObject({ restarts: false, restart: false });
  });

  test("globalNetworking alone restarts the pod after the PATCH; with a restarting field the PATCH's own restart does", () => {
    const gn = plan(gpuPod, { globalNetworking: true });
    expect(planUpdate("pod-1", gn.olds, gn.news)).toMatchObject({ restart: true, restarts: false });
    const withImage = plan(gpuPod, { globalNetworking: true, image: "img:2" });
    expect(planUpdate("pod-1", withImage.olds, withImage.news)).toMatchObject({ restart: false, restarts: true });
    const stopped = plan(gpuPod, { globalNetworking: true, desiredStatus: "EXITED" });
    expect(planUpdate("pod-1", stopped.olds, stopped.news).restart).toBe(false);
  });

  test("locking comes last when the PATCH restarts the pod or the pod is stopped or restarted; alone it goes in the PATCH", () => {
    const lockAndImage = plan(gpuPod, { locked: true, image: "img:2" });
    const steps = planUpdate("pod-1", lockAndImage.olds, lockAndImage.news);
    expect(steps).toMatchObject({ lockLast: true, patch: { image: "img:2" } });
    expect(steps.patch).not.toHaveProperty("locked");
    const lockAndStop = plan(gpuPod, { locked: true, desiredStatus: "EXITED" });
    expect(planUpdate("pod-1", lockAndStop.olds, lockAndStop.news)).toMatchObject({ lockLast: true, patch: {} });
    const lockAndRestart = plan(gpuPod, { locked: true, globalNetworking: true });
    expect(planUpdate("pod-1", lockAndRestart.olds, lockAndRestart.news)).toMatchObject({ lockLast: true, restart: true });
    const lock = plan(gpuPod, { locked: true });
    expect(planUpdate("pod-1", lock.olds, lock.news)).toMatchObject({ lockLast: false, patch: { locked: true } });
    const stopped = { ...gpuPod, desiredStatus: "EXITED" };
    const lockStopped = plan(stopped, { locked: true }, { status: "EXITED" });
    expect(planUpdate("pod-1", lockStopped.olds, lockStopped.news)).toMatchObject({ lockLast: false, patch: { locked: true } });
  });

  test("an update never plans a change that needs a new pod, and keeps the price set at creation", () => {
    const gpu = plan(gpuPod, { gpu: { id: "NVIDIA_H100" } });
    expect(() => planUpdate("pod-1", gpu.olds, gpu.news)).toThrow("pod pod-1: gpu cannot change in place; the pod must be replaced");
    const p = plan(gpuPod, { image: "img:2" });
    const olds = { ...p.olds, __declared: { ...p.olds.__declared, hourlyCost: 1.25 } };
    expect(planUpdate("pod-1", olds, p.news).declaration.hourlyCost).toBe(1.25);
    expect(planUpdate("pod-1", p.olds, p.news).declaration).not.toHaveProperty("hourlyCost");
  });

  test("an update refused for several replaces names each of them, apart", () => {
    const p = plan(gpuPod, { gpu: { id: "NVIDIA_H100" }, cloud: "COMMUNITY" });
    expect(() => planUpdate("pod-1", p.olds, p.news)).toThrow("pod pod-1: gpu, cloud cannot change in place; the pod must be replaced");
  });

  test("state written before __declared existed (or by Pod.get) updates without a price of its own", () => {
    const p = plan(gpuPod, { image: "img:2" });
    const { __declared: _declared, ...legacy } = p.olds;
    const steps = planUpdate("pod-1", legacy as PodOutputs, p.news);
    expect(steps).toMatchObject({ patch: { image: "img:2" }, recordOnly: false });
    expect(steps.declaration).not.toHaveProperty("hourlyCost");
  });

  test("only a change that locks the pod puts the lock last: an unlock stays in the PATCH, and an unlocked pod's stop, restart or restarting PATCH hold no lock back", () => {
    const locked = { ...gpuPod, locked: true };
    const unlockAndStop = plan(locked, { locked: false, desiredStatus: "EXITED" });
    expect(planUpdate("pod-1", unlockAndStop.olds, unlockAndStop.news)).toMatchObject({ lockLast: false, patch: { locked: false } });
    const unlockAndImage = plan(locked, { locked: false, image: "img:2" });
    expect(planUpdate("pod-1", unlockAndImage.olds, unlockAndImage.news)).toMatchObject({ lockLast: false, patch: { locked: false, image: "img:2" } });
    for (const change of [{ desiredStatus: "EXITED" }, { globalNetworking: true }, { image: "img:2" }]) {
      const p = plan(gpuPod, change);
      expect(planUpdate("pod-1", p.olds, p.news).lockLast).toBe(false);
    }
  });
});

describe("a locked pod: what the platform refuses, refused before any request", () => {
  const locked = { ...gpuPod, locked: true };
  const refusal = (change: Record<string, unknown>, live: Partial<WirePod> = {}) => {
    const p = plan(locked, change, live);
    return lockedRefusal(p.olds, p.news, podPatch(p.olds, p.news));
  };

  test("a restarting field of a running (or starting) locked pod is refused, naming the fields", () => {
    expect(refusal({ image: "img:2", ports: ["22/tcp"] })).toBe(
      "is locked, and a change of image, ports restarts its container, which the platform refuses on a locked pod; " +
        "set locked: false in the same change, or leave them as they are",
    );
    expect(refusal({ image: "img:2" }, { status: "STARTING" })).toMatch(/^is locked, and a change of image restarts/);
  });

  test("a restarting field of a stopped locked pod, a rename, and any change that unlocks are not refused", () => {
    const stopped = plan({ ...locked, desiredStatus: "EXITED" }, { image: "img:2" }, { status: "EXITED" });
    expect(lockedRefusal(stopped.olds, stopped.news, podPatch(stopped.olds, stopped.news))).toBeUndefined();
    expect(refusal({ name: "web-2" })).toBeUndefined();
    expect(refusal({ locked: false, image: "img:2", desiredStatus: "EXITED" })).toBeUndefined();
    const locking = plan(gpuPod, { locked: true, image: "img:2" });
    expect(lockedRefusal(locking.olds, locking.news, podPatch(locking.olds, locking.news))).toBeUndefined();
  });

  test("stopping a locked pod, or restarting a running one for globalNetworking, is refused", () => {
    expect(refusal({ desiredStatus: "EXITED" })).toBe(
      "is locked, so it cannot be stopped; set locked: false in the same change, or leave desiredStatus and globalNetworking as they are",
    );
    expect(refusal({ globalNetworking: true })).toMatch(/^is locked, so it cannot be restarted \(globalNetworking applies at the next start\); /);
    expect(refusal({ globalNetworking: true }, { status: "STARTING" })).toBeUndefined();
    const stopped = plan({ ...locked, desiredStatus: "EXITED" }, { desiredStatus: "EXITED" }, { status: "EXITED" });
    expect(lockedRefusal(stopped.olds, stopped.news, podPatch(stopped.olds, stopped.news))).toBeUndefined();
  });

  test("planUpdate throws the refusal, naming the pod", () => {
    const p = plan(locked, { image: "img:2" });
    expect(() => planUpdate("pod-1", p.olds, p.news)).toThrow(/^pod pod-1 is locked, and a change of image restarts its container/);
  });

  test("preview refuses as up would: a known change, or an unknown registry (a new credential's id equals no existing one)", () => {
    const known = plan(locked, { image: "img:2" });
    expect(previewRefusal(known.olds, known.news)).toMatch(/^is locked, and a change of image restarts/);
    const registry = plan(locked, { registry: UNKNOWN });
    expect(previewRefusal(registry.olds, registry.news)).toMatch(/^is locked, and a change of registry restarts/);
    const image = plan(locked, { image: UNKNOWN });
    expect(previewRefusal(image.olds, image.news)).toBeUndefined();
    const unlocking = plan(locked, { registry: UNKNOWN, locked: UNKNOWN });
    expect(previewRefusal(unlocking.olds, unlocking.news)).toBeUndefined();
    const both = plan(locked, { registry: UNKNOWN, image: UNKNOWN });
    expect(previewRefusal(both.olds, both.news)).toMatch(/^is locked, and a change of registry restarts/);
    const fine = plan(locked, { name: "web-2" });
    expect(previewRefusal(fine.olds, fine.news)).toBeUndefined();
  });

  test("preview refuses an unknown registry only of a pod that stays locked: not with a known unlock, nor of a pod being locked, whatever else is unknown", () => {
    const unlocking = plan(locked, { registry: UNKNOWN, image: UNKNOWN, locked: false });
    expect(previewRefusal(unlocking.olds, unlocking.news)).toBeUndefined();
    const locking = plan(gpuPod, { registry: UNKNOWN, image: UNKNOWN, locked: true });
    expect(previewRefusal(locking.olds, locking.news)).toBeUndefined();
    const staying = plan(locked, { registry: UNKNOWN, image: UNKNOWN, locked: true });
    expect(previewRefusal(staying.olds, staying.news)).toMatch(/^is locked, and a change of registry restarts/);
  });
});
