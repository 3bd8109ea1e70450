// A pod's create, planned once before any request (pod/create-plan.ts): the pending name and
// this create's own mark, a body per GPU choice, a replacement's mark that ends with the base
// token, and how an earlier try becomes the planned pod.
import { baseOf, pendingName, replacementToken } from "../../../../src/resources/lifecycle/owner";
import { planCreate, planExisting } from "../../../../src/resources/pod/create-plan";
import { OWNER_ENV, type PodInputs } from "../../../../src/resources/pod/schema";
import { checked, cpuPod, gpuPod, liveFor } from "../../../helpers/pod-plan";

describe("a create's plan", () => {
  const owned = checked({ ...gpuPod, name: undefined, gpu: { id: ["NVIDIA_A100", "NVIDIA_L40S"], count: 1 } });
  const base = baseOf("Pod", owned as unknown as Record<string, unknown>)!;

  test("an owned create sends the pending name and its own mark (the token and 8 hex); it is no replacement", () => {
    const p = planCreate(owned);
    expect(p.token).toBe(base);
    expect(p.mark).toMatch(new RegExp(`^${base}\\.[0-9a-f]{8}$`));
    expect(p.body.name).toBe(pendingName(owned.name));
    expect(p.body.env?.[OWNER_ENV]).toBe(p.mark);
    expect(p.replacement).toBe(false);
    expect(planCreate(owned).mark).not.toBe(p.mark);
    expect(p.declaration.keys).toContain("image");
  });

  test("each GPU choice is tried with the same body, asking for that type", () => {
    const p = planCreate(owned);
    expect(p.gpuChoices).toEqual(["NVIDIA_A100", "NVIDIA_L40S"]);
    expect(p.body.gpu).toEqual({ id: "NVIDIA_A100", count: 1 });
    expect(p.bodyFor("NVIDIA_L40S")).toEqual({ ...p.body, gpu: { id: "NVIDIA_L40S", count: 1 } });
    expect(planCreate(checked(cpuPod)).gpuChoices).toEqual([]);
  });

  test("a replacement's mark ends with the base token, so the stack's cost finds the pod by it", () => {
    const token = replacementToken(base, "pod-old");
    const p = planCreate({ ...owned, __ownerToken: token } as PodInputs);
    expect(p.replacement).toBe(true);
    expect(p.mark).toMatch(new RegExp(`^${token}\\.[0-9a-f]{8}\\.${base}$`));
    // The pod it replaces, as diff saw it: the budgets leave it out (the engine deletes it next).
    expect(planCreate({ ...owned, __ownerToken: token } as PodInputs, "pod-old").replaces).toBe("pod-old");
    // Not a replacement: an id handed in says nothing.
    expect(planCreate(owned, "pod-old")).not.toHaveProperty("replaces");
    expect(planCreate({ ...owned, __ownerToken: token } as PodInputs)).not.toHaveProperty("replaces");
  });

  test("without a token (a provider driven directly) the body has the name and no mark", () => {
    const { __ownerToken: _t, ...bare } = owned as PodInputs & { __ownerToken?: string };
    const p = planCreate(bare as PodInputs);
    expect(p).toMatchObject({ token: undefined, mark: undefined, replacement: false });
    expect(planCreate(bare as PodInputs, "pod-old")).not.toHaveProperty("replaces");
    expect(p.body.name).toBe(owned.name);
    expect(p.body.env ?? {}).not.toHaveProperty(OWNER_ENV);
  });
});

describe("an existing pod becoming the planned one (an earlier try)", () => {
  const inputs = checked(gpuPod);
  const create = planCreate(inputs);

  test("an earlier try under the pending name needs only the rename", () => {
    const pod = liveFor(inputs, { name: pendingName(inputs.name), env: { ...inputs.env, [OWNER_ENV]: "x" } });
    const { baseline, change } = planExisting(pod, create);
    expect(change).toEqual({ replaces: [], updates: ["name"] });
    expect(baseline.name).toBe(pendingName(inputs.name));
    expect(baseline.__declared.envKeys).toEqual([]);
  });

  test("a stopped try is planned from stopped, and one outside the allowed data centers cannot become this pod", () => {
    const stopped = planExisting(liveFor(inputs, { status: "EXITED" }), create);
    expect(stopped.baseline.desiredStatus).toBe("EXITED");
    expect(stopped.change.updates).toEqual(["desiredStatus"]);
    expect(planExisting(liveFor(inputs, { dataCenterId: "CA-MTL-1" }), create).change.replaces).toEqual(["dataCenterIds"]);
  });

  test("global networking is read from the pod, so a try that has it differs from a plan without it", () => {
    const pod = liveFor(inputs, { globalNetworking: { enabled: true, ip: "10.66.0.2", internalDns: "x" } });
    expect(planExisting(pod, create).change.updates).toEqual(["globalNetworking"]);
  });
});
