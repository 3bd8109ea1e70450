/**
 * Owner tokens (src/resources/lifecycle/owner.ts): what makes a create findable again after the plugin
 * was killed mid-create, without ever mistaking another stack's pod, or the pod being
 * replaced, for an earlier try. Pure: no I/O.
 */
import {
  autoName,
  baseOf,
  baseOwnerToken,
  isAutoNamed,
  isPendingName,
  ownerInputs,
  ownerToken,
  pendingName,
  Predecessors,
  replacementToken,
  resolveName,
  STACK_MARK_ENV,
  stackOf,
} from "../../../../src/resources/lifecycle/owner";
import { planPodChange } from "../../../../src/resources/pod/plan";
import { checkPod, OWNER_ENV } from "../../../../src/resources/pod/schema";
import { planEndpointDiff } from "../../../../src/resources/serverless-endpoint/plan";
import { checkEndpointInputs, isOwnerNamed } from "../../../../src/resources/serverless-endpoint/schema";

const scope = { __organization: "acme", __project: "infra", __stack: "dev", __logicalName: "trainer" };
const pod = { ...scope, image: "img/app:1", gpu: { id: "NVIDIA_A100" } };

describe("base token", () => {
  test("is 16 hex, the same for the same declaration, and apart for any other scope", () => {
    const t = baseOwnerToken("Pod", scope, "trainer");
    expect(t).toMatch(/^[0-9a-f]{16}$/);
    expect(baseOwnerToken("Pod", { ...scope }, "trainer")).toBe(t);
    const others = [
      baseOwnerToken("Pod", { ...scope, __stack: "prod" }, "trainer"),
      baseOwnerToken("Pod", { ...scope, __project: "other" }, "trainer"),
      baseOwnerToken("Pod", { ...scope, __organization: "other" }, "trainer"),
      baseOwnerToken("Pod", { ...scope, __parents: "my:Component::a" }, "trainer"),
      baseOwnerToken("ServerlessEndpoint", scope, "trainer"),
      baseOwnerToken("Pod", scope, "trainer2"),
    ];
    expect(new Set([t, ...others]).size).toBe(others.length + 1);
  });

  test("fields do not run into each other: (ab, c) and (a, bc) differ", () => {
    expect(baseOwnerToken("Pod", { __project: "ab", __stack: "c" }, "x")).not.toBe(
      baseOwnerToken("Pod", { __project: "a", __stack: "bc" }, "x"),
    );
  });

  test("needs the logical name: without it there is no token", () => {
    expect(baseOf("Pod", { __project: "p" })).toBeUndefined();
    expect(ownerToken("Pod", {}, { __project: "p" })).toBeUndefined();
    expect(checkPod({}, { image: "i", gpu: { id: "G" } }).inputs).not.toHaveProperty("__ownerToken");
  });
});

describe("tokens an earlier release wrote stay the same", () => {
  // The state and the pods of test/engine/fixtures/compat-state.json, made by an earlier release:
  // a pod and an endpoint of project quickstart, stack compat. A changed hash input would make
  // every such object unfindable (a crash's leftover never cleaned up, an auto-name that moves).
  const compat = { __project: "quickstart", __stack: "compat" };

  test("the base token of a pod and of an endpoint is the one their objects carry", () => {
    expect(baseOwnerToken("Pod", compat, "trainer")).toBe("92b13169b090bce9");
    expect(baseOwnerToken("ServerlessEndpoint", compat, "api")).toBe("9a666334a477a0d7");
    expect(baseOf("Pod", { ...compat, __logicalName: "trainer" })).toBe("92b13169b090bce9");
    expect(autoName("trainer", undefined, "92b13169b090bce9")).toBe("trainer-92b1316");
  });

  test("every scope field and the parents go into the hash, in their place", () => {
    expect(baseOwnerToken("Pod", scope, "trainer")).toBe("7b613ff168476796");
    expect(baseOwnerToken("Pod", { ...scope, __parents: "my:Cluster::c1" }, "trainer")).toBe("43ba30d7666007dc");
  });

  test("a replacement's token hashes the base and the old id", () => {
    expect(replacementToken("7b613ff168476796", "pod-old")).toBe("6c2142a334095a7f");
  });
});

describe("ownerToken in check", () => {
  const base = baseOwnerToken("Pod", scope, "trainer");

  test("a new resource gets the base token; old inputs carry theirs through updates", () => {
    expect(ownerToken("Pod", {}, pod)).toBe(base);
    expect(ownerToken("Pod", undefined, pod)).toBe(base);
    expect(ownerToken("Pod", { __ownerToken: "feedfacefeedface" }, pod)).toBe("feedfacefeedface");
  });

  test("a replacement diffed in this process derives from the old id: apart from every pod before it, the same on a retry", () => {
    const known = new Map([[base, "pod-old"]]);
    const t = ownerToken("Pod", {}, pod, (b) => known.get(b));
    expect(t).toBe(replacementToken(base, "pod-old"));
    expect(t).not.toBe(base);
    expect(ownerToken("Pod", {}, pod, (b) => known.get(b))).toBe(t);
    expect(replacementToken(base, "pod-other")).not.toBe(t);
  });

  test("the auto-name comes from the token: the same on a retry, apart across stacks and replacements", () => {
    const dev = checkPod({}, pod).inputs!;
    const again = checkPod({}, pod).inputs!;
    const prod = checkPod({}, { ...pod, __stack: "prod" }).inputs!;
    const replacement = checkPod({}, pod, () => "pod-old").inputs!;
    expect(dev.name).toBe(`trainer-${base.slice(0, 7)}`);
    expect(again.name).toBe(dev.name);
    expect(prod.name).not.toBe(dev.name);
    expect(replacement.name).not.toBe(dev.name);
    expect(replacement.__ownerToken).toBe(replacementToken(base, "pod-old"));
    // An update keeps the name it had, whatever the token.
    expect(checkPod({ name: "trainer-abc1234", __ownerToken: base }, pod).inputs!.name).toBe("trainer-abc1234");
  });

  test("the token's env var is the provider's: declaring it fails check, naming the key", () => {
    const r = checkPod({}, { ...pod, env: { [OWNER_ENV]: "x" } });
    expect(r.failures).toEqual([{ property: `env.${OWNER_ENV}`, reason: expect.stringMatching(/set by this provider/) }]);
  });

  test("the stack mark's env var is the provider's too: declaring it fails check, naming the key", () => {
    const r = checkPod({}, { ...pod, env: { [STACK_MARK_ENV]: "acme/infra/prod" } });
    expect(r.failures).toEqual([{ property: `env.${STACK_MARK_ENV}`, reason: expect.stringMatching(/set by this provider to say which stack/) }]);
  });

  test("the token and the hidden inputs never make a diff", () => {
    const first = checkPod({}, pod).inputs!;
    const outs = {
      id: "p1", name: first.name, status: "RUNNING", actions: [], image: "img/app:1", args: "", disk: 20, mounts: {},
      ports: [], env: { [OWNER_ENV]: `${first.__ownerToken}.0a1b2c3d` }, registry: null, gpu: { id: "NVIDIA_A100", count: 1 },
      cloud: "SECURE", dataCenterId: "DC", template: null, cost: 1, locked: false, globalNetworking: { enabled: false },
      runtime: null, createdAt: "", startedAt: null, desiredStatus: "RUNNING", waitFor: "RUNNING", waitTimeoutSeconds: 600,
      __declared: { keys: ["cloud", "globalNetworking", "gpu", "image", "locked", "name"], envKeys: [], globalNetworking: false },
    } as any;
    const moved = { ...first, __ownerToken: "0000000000000000", __stack: "elsewhere", __parents: "x" };
    expect(planPodChange(outs, moved)).toEqual({ replaces: [], updates: [] });
  });
});

describe("endpoints", () => {
  const ep = { ...scope, __logicalName: "api", gpuIds: "AMPERE_24", templateId: "tpl" };

  test("an auto-name from the token says whose the endpoint is; a given name does not", () => {
    const auto = checkEndpointInputs({}, ep).inputs;
    expect(auto.name).toBe(autoName("api", undefined, auto.__ownerToken));
    expect(isOwnerNamed(auto)).toBe(true);
    const given = checkEndpointInputs({}, { ...ep, name: "my-api" }).inputs;
    expect(isOwnerNamed(given)).toBe(false);
    // Kept across an update even when a later token would differ.
    const kept = checkEndpointInputs(auto, ep, () => "ep-old").inputs;
    expect(kept.name).toBe(auto.name);
    expect(kept.__ownerToken).toBe(auto.__ownerToken);
  });

  test("the token never makes a diff", () => {
    const inputs = checkEndpointInputs({}, ep).inputs;
    const olds = { name: inputs.name, gpuIds: "AMPERE_24", templateId: "tpl", type: "QB", waitForWorkers: true, readyTimeoutSeconds: 600, drainTimeoutSeconds: 600 };
    expect(planEndpointDiff(olds, { ...inputs, __ownerToken: "0000000000000000", __stack: "x" }).changes).toBe(false);
  });
});

describe("stack marks", () => {
  test("stackOf: organization, project and stack from the hidden inputs, the organization left out where the program knows none", () => {
    expect(STACK_MARK_ENV).toBe("COMPUTEPLATFORM_STACK");
    expect(stackOf({ __organization: "acme", __project: "infra", __stack: "dev" })).toBe("acme/infra/dev");
    expect(stackOf({ __organization: "", __project: "infra", __stack: "dev" })).toBe("infra/dev");
    expect(stackOf({ __project: "infra", __stack: "dev" })).toBe("infra/dev");
    expect(stackOf({ __organization: "acme", __stack: "dev" })).toBeUndefined();
    expect(stackOf({ __organization: "acme", __project: "infra" })).toBeUndefined();
    expect(stackOf({ __organization: "acme", __project: 7, __stack: "dev" })).toBeUndefined();
    expect(stackOf(undefined)).toBeUndefined();
  });
});

describe("ownerInputs", () => {
  const program = { organization: () => "acme", project: () => "infra", stack: () => "dev" };

  test("organization, project and stack of the program; the parents' types and names, outermost first", () => {
    const root = { __pulumiType: "pulumi:pulumi:Stack", __name: "infra-dev" };
    const outer = { __pulumiType: "my:Cluster", __name: "c1", __parentResource: root };
    const inner = { __pulumiType: "my:Node", __name: "n1", __parentResource: outer };
    expect(ownerInputs(inner, program)).toEqual({
      __organization: "acme",
      __project: "infra",
      __stack: "dev",
      __parents: "my:Cluster::c1$my:Node::n1",
    });
    expect(ownerInputs(undefined, program)).toEqual({ __organization: "acme", __project: "infra", __stack: "dev" });
  });

  test("outside a program (the getters throw) nothing is added", () => {
    const none = () => {
      throw new Error("no project");
    };
    expect(ownerInputs(undefined, { organization: none, project: none, stack: none })).toEqual({});
  });
});

describe("Predecessors", () => {
  test("remembers the old id per base token until that id is deleted", () => {
    const p = new Predecessors();
    p.record("b1", "pod-1");
    p.record(undefined, "pod-x");
    p.record("b2", "pod-2");
    expect([p.get("b1"), p.get("b2"), p.get(undefined)]).toEqual(["pod-1", "pod-2", undefined]);
    p.forget("pod-1");
    expect([p.get("b1"), p.get("b2")]).toEqual([undefined, "pod-2"]);
  });
});

describe("names", () => {
  const bytes = () => Buffer.from([0xde, 0xad, 0xbe, 0xef]);

  test("an auto-name is the logical name and 7 hex: of the token when it is hex, else random", () => {
    expect(autoName("web", bytes, "0123456789abcdef")).toBe("web-0123456");
    expect(autoName("web", bytes)).toBe("web-deadbee");
    expect(autoName("web", bytes, "not-hex-token")).toBe("web-deadbee");
    expect(autoName("web", bytes, "abc12")).toBe("web-deadbee");
    expect(autoName("web", bytes, "x0123456789")).toBe("web-deadbee");
    expect(autoName("web", bytes, "0123456789x")).toBe("web-deadbee");
    expect(autoName("web")).toMatch(/^web-[0-9a-f]{7}$/);
  });

  test("a pending name ends with ~creating, and only such a name is pending", () => {
    expect(pendingName("web-1")).toBe("web-1~creating");
    expect(isPendingName("web-1~creating")).toBe(true);
    expect(isPendingName("web-1")).toBe(false);
    expect(isPendingName("web-1~creating-2")).toBe(false);
    expect(isPendingName(undefined)).toBe(false);
  });

  test("inputs are auto-named when their name is the one made from their token and logical name", () => {
    const token = "0123456789abcdef";
    const inputs = { __ownerToken: token, __logicalName: "web", name: "web-0123456" };
    expect(isAutoNamed(inputs)).toBe(true);
    expect(isAutoNamed({ ...inputs, name: "my-web" })).toBe(false);
    expect(isAutoNamed({ ...inputs, __ownerToken: undefined })).toBe(false);
    expect(isAutoNamed({ ...inputs, __logicalName: undefined })).toBe(false);
    expect(isAutoNamed(undefined)).toBe(false);
    // Only strings count: a logical name or a token of another type never makes an auto-name.
    expect(isAutoNamed({ __ownerToken: token, __logicalName: undefined, name: "undefined-0123456" })).toBe(false);
    expect(isAutoNamed({ __ownerToken: 1234567890, __logicalName: "web", name: "web-1234567" })).toBe(false);
  });

  test("the name check settles on: the given one, else the one made before, else a new one from the token", () => {
    const token = "0123456789abcdef";
    expect(resolveName("mine", { name: "web-old" }, "web", token)).toBe("mine");
    expect(resolveName(undefined, { name: "web-old" }, "web", token)).toBe("web-old");
    expect(resolveName("", { name: "web-old" }, "web", token)).toBe("web-old");
    expect(resolveName(null, { name: "web-old" }, "web", token)).toBe("web-old");
    expect(resolveName(undefined, { name: "" }, "web", token)).toBe("web-0123456");
    expect(resolveName(undefined, { name: 7 }, "web", token)).toBe("web-0123456");
    expect(resolveName(undefined, undefined, "web", token)).toBe("web-0123456");
  });
});

describe("owner token edge cases", () => {
  test("an empty token kept in old inputs is none: the token is derived again", () => {
    const base = baseOwnerToken("Pod", scope, "trainer");
    expect(ownerToken("Pod", { __ownerToken: "" }, pod)).toBe(base);
    expect(ownerToken("Pod", null as any, pod)).toBe(base);
    expect(ownerToken("Pod", {}, { ...pod, __logicalName: "" })).toBeUndefined();
    expect(baseOf("Pod", { ...scope, __logicalName: "" })).toBeUndefined();
  });

  test("a scope field that is not a string counts as empty", () => {
    expect(baseOwnerToken("Pod", { ...scope, __stack: 7 } as any, "trainer")).toBe(baseOwnerToken("Pod", { ...scope, __stack: "" }, "trainer"));
  });

  test("ownerInputs leaves out an empty value and a parent without a type, and stops at 64 parents", () => {
    const program = { organization: () => "", project: () => "infra", stack: () => "dev" };
    const untyped = { __name: "x", __parentResource: { __pulumiType: "my:A", __name: "a" } };
    expect(ownerInputs(untyped, program)).toEqual({ __project: "infra", __stack: "dev", __parents: "my:A::a" });
    expect(ownerInputs(undefined, { ...program, stack: () => 7 as unknown as string })).toEqual({ __project: "infra" });
    const loop: Record<string, unknown> = { __pulumiType: "my:Loop", __name: "l" };
    loop.__parentResource = loop;
    expect(ownerInputs(loop, program).__parents!.split("$")).toHaveLength(64);
  });

  test("Predecessors ignores a record without a base or an id, and forgets only the id deleted", () => {
    const p = new Predecessors();
    p.record("", "pod-1");
    p.record("b1", "");
    expect(p.get("")).toBeUndefined();
    expect(p.get("b1")).toBeUndefined();
    p.record("b1", "pod-1");
    p.record("b2", "pod-2");
    p.forget("pod-3");
    expect([p.get("b1"), p.get("b2")]).toEqual(["pod-1", "pod-2"]);
  });
});
