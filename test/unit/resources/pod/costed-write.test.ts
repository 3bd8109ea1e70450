// A Pod's writes as the budgets see them (costed-write.ts): a create try is priced with the body
// it POSTs (each GPU choice of a fallback is a try of the same create, under one key), running
// for the minutes of the create even when declared stopped; an update keeps the compute the pod
// has, running unless the program stops it, and says "start" when it starts a stopped pod.
import type { PodCreateParams } from "../../../../src/client";
import { podCreateWrite, podUpdateWrite } from "../../../../src/resources/pod/costed-write";
import type { PodOutputs } from "../../../../src/resources/pod/outputs";
import type { PodInputs } from "../../../../src/resources/pod/schema";

// The create plan as far as a costed write reads it (imported by type from the write, so this file
// is not taken for a test of the plan by the mutation run).
type CreatePlan = Parameters<typeof podCreateWrite>[0];

const inputs = (over: Partial<PodInputs> = {}) => ({ name: "trainer", desiredStatus: "RUNNING", ...over }) as PodInputs;
const plan = (over: Partial<CreatePlan> = {}) => ({ inputs: inputs(), replacement: false, ...over }) as CreatePlan;
const body = (over: Partial<PodCreateParams> = {}): PodCreateParams => ({ name: "trainer", image: "i", gpu: { id: "H100", count: 2 }, cloud: "COMMUNITY", ...over });

describe("podCreateWrite", () => {
  it("a GPU try: its type and count as POSTed, its cloud, the create's mark as key, running", () => {
    expect(podCreateWrite(plan({ mark: "tok.abcd1234", replaces: "old-pod" }), body())).toEqual({
      label: "pod trainer",
      change: "create (H100 x2, COMMUNITY)",
      key: "tok.abcd1234",
      replaces: "old-pod",
      stack: undefined,
      compute: { kind: "pod", gpu: { id: "H100", count: 2 }, cpu: undefined, cloud: "COMMUNITY", running: true },
    });
  });

  it("each GPU choice of a fallback is a try of the same create: one key", () => {
    const p = plan({ mark: "tok.abcd1234" });
    expect(podCreateWrite(p, body({ gpu: { id: "L40S", count: 2 } })).key).toBe(podCreateWrite(p, body()).key);
    expect(podCreateWrite(p, body({ gpu: { id: "L40S", count: 2 } })).change).toBe("create (L40S x2, COMMUNITY)");
  });

  it("without a mark, the key is the pod's name; a count left out is one; a cloud left out is SECURE", () => {
    const w = podCreateWrite(plan(), body({ gpu: { id: "H100" }, cloud: undefined }));
    expect(w.key).toBe("create:pod:trainer");
    expect(w.change).toBe("create (H100 x1, SECURE)");
    expect(w.compute).toMatchObject({ gpu: { id: "H100", count: 1 }, cloud: "SECURE" });
  });

  it("a CPU try names its vCPUs; a pod declared stopped says so but bills while it is made", () => {
    const w = podCreateWrite(plan({ inputs: inputs({ desiredStatus: "EXITED" }) }), body({ gpu: undefined, cpu: { id: "cpu3c", vcpuCount: 4 }, cloud: "SECURE" }));
    expect(w.change).toBe("create (cpu3c x4 vCPU, SECURE, stopped)");
    expect(w.compute).toEqual({ kind: "pod", gpu: undefined, cpu: { id: "cpu3c", vcpuCount: 4 }, cloud: "SECURE", running: true });
    expect(podCreateWrite(plan(), body({ gpu: undefined })).change).toBe("create (no compute, COMMUNITY)");
  });

  it("the stack the program runs in, from its hidden inputs", () => {
    const p = plan({ inputs: { ...inputs(), __organization: "acme", __project: "infra", __stack: "prod" } as PodInputs });
    expect(podCreateWrite(p, body()).stack).toBe("acme/infra/prod");
  });
});

describe("podUpdateWrite", () => {
  const olds = (status: string) => ({ status, gpu: { id: "H100", count: 1 }, cloud: "SECURE" }) as PodOutputs;

  it("the compute the pod has, running unless the program stops it", () => {
    expect(podUpdateWrite("p1", olds("RUNNING"), inputs())).toEqual({
      label: "pod trainer",
      change: "update",
      id: "p1",
      stack: undefined,
      compute: { kind: "pod", gpu: { id: "H100", count: 1 }, cpu: undefined, cloud: "SECURE", running: true },
    });
    expect(podUpdateWrite("p1", olds("RUNNING"), inputs({ desiredStatus: "EXITED" }))).toMatchObject({ change: "update", compute: { running: false } });
  });

  it.each(["EXITED", "ERROR"])("a %s pod the program wants running: a start", (status) => {
    expect(podUpdateWrite("p1", olds(status), inputs()).change).toBe("start");
    expect(podUpdateWrite("p1", olds(status), inputs({ desiredStatus: "EXITED" })).change).toBe("update");
  });
});
