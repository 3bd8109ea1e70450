// The program written from an account's lists, pure: what it declares, references, reads from
// config and leaves out. (test/engine/account-program.test.ts runs one through Pulumi's plugin.)
import { programReport, writeProgram } from "../../../src/account/program";
import type { AccountLists } from "../../../src/account/sweep";

const pod = (over: Record<string, unknown>) => ({
  id: "p1", name: "trainer", status: "RUNNING", image: "t:1", args: "", disk: 20, ports: [], env: { COMPUTEPLATFORM_POD_ID: "p1" }, registry: null,
  gpu: { id: "NVIDIA L40S", count: 1 }, cloud: "SECURE", mounts: {}, globalNetworking: { enabled: false }, locked: false, cost: 0.86, ...over,
});
const lists = (over: Partial<Record<keyof AccountLists, unknown[]>>): AccountLists =>
  ({ pods: [], networkVolumes: [], templates: [], registries: [], endpoints: [], gpus: [], ...over }) as unknown as AccountLists;

test("references when both are declared, the id (and a note) when the referenced object is left out by the filter", () => {
  const l = lists({
    networkVolumes: [{ id: "nv1", name: "data", size: 20, dataCenter: "EU-RO-1", type: "STANDARD" }],
    pods: [pod({ mounts: { network: [{ volumeId: "nv1", path: "/d" }] } })],
  });
  expect(writeProgram(l).text).toContain('mounts: { network: [{ volumeId: dataVolume.id, path: "/d" }] },');
  const narrowed = writeProgram(l, { kinds: ["Pod"] });
  expect(narrowed.text).toContain('volumeId: "nv1"');
  expect(narrowed.notes).toEqual(["pod p1's network mount names nv1, which the program does not declare: written as the id (adopt it too, or keep it outside the stack)"]);
  expect(writeProgram(l, { ids: ["nv1"] }).declared).toEqual([{ kind: "NetworkVolume", name: "data", id: "nv1" }]);
  expect(writeProgram(l, { name: "trai" }).declared.map((d) => d.id)).toEqual(["p1"]);
});

test("the platform's env keys are never declared; values come from secret config, named in the report, never written", () => {
  const written = writeProgram(lists({ pods: [pod({ env: { COMPUTEPLATFORM_POD_ID: "p1", COMPUTEPLATFORM_STACK: "ml/dev", TOKEN: "s3cr3t" } })] }));
  expect(written.text).not.toContain("s3cr3t");
  expect(written.text).not.toContain("COMPUTEPLATFORM_");
  expect(written.config).toEqual([{ key: "trainerPodEnv.TOKEN", what: "env TOKEN" }]);
  expect(programReport(written)).toContain("pulumi config set --secret --path trainerPodEnv.TOKEN <env TOKEN>");
});

test("left out with the reason: a pod another stack's resource made, an unfinished create; names made unique per kind", () => {
  const written = writeProgram(
    lists({
      pods: [pod({ id: "p2", env: { COMPUTEPLATFORM_OWNER: "0123.ab", COMPUTEPLATFORM_STACK: "ml/prod" } }), pod({ id: "p3", name: "x~creating" }), pod({ id: "p4", name: "Trainer" }), pod({ id: "p5", name: "trainer", status: "EXITED" })],
    }),
  );
  expect(written.leftOut).toEqual([
    { kind: "Pod", id: "p2", name: "trainer", why: "made by a Pulumi stack's Pod (stack ml/prod) (env COMPUTEPLATFORM_OWNER): it belongs in that stack, and adopt refuses it" },
    { kind: "Pod", id: "p3", name: "x~creating", why: expect.stringContaining("an unfinished create of a stack") },
  ]);
  expect(written.declared).toEqual([{ kind: "Pod", name: "trainer", id: "p4" }, { kind: "Pod", name: "trainer-2", id: "p5" }]);
  expect(written.text).toContain('desiredStatus: "EXITED",');
  expect(writeProgram(lists({})).text).toBe("// Adopts 0 objects: the first `pulumi up` takes each over and changes nothing.\nexport {};\n");
});
