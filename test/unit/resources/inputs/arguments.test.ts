// The one rule for arguments a kind does not have: each kind's check() refuses a misspelled
// argument by name with the nearest one it has, through the same shared code.
import { didYouMean, editDistance, nearestName, suggestIds, undeclaredArgs, unknownArgReason } from "../../../../src/resources/inputs/arguments";
import { UNKNOWN } from "../../../../src/resources/inputs/check";
import { LOGICAL_NAME_KEY } from "../../../../src/resources/lifecycle/owner";
import { checkNetworkVolume } from "../../../../src/resources/network-volume/schema";
import { checkPod } from "../../../../src/resources/pod/schema";
import { checkRegistryCredential } from "../../../../src/resources/registry-credential/schema";
import { checkEndpointInputs } from "../../../../src/resources/serverless-endpoint/schema";
import { checkTemplate } from "../../../../src/resources/template/schema";

test.each([
  ["imagee", "image", 1],
  ["passwrd", "password", 1],
  ["gpuids", "gpuIds", 0],
  ["wrokersMax", "workersMax", 1],
  ["size", "disk", 3],
])("editDistance(%s, %s) = %d", (a, b, d) => {
  expect(editDistance(a, b)).toBe(d);
});

test.each([
  ["imagee", ["name", "image", "args"], "image"],
  ["sizee", ["name", "size", "dataCenter"], "size"],
  ["datacenter", ["name", "size", "dataCenter"], "dataCenter"],
  ["timeout", ["idleTimeout", "readyTimeoutSeconds"], "idleTimeout"],
  ["zzz", ["name", "size"], undefined],
])("nearestName(%s) is %s", (name, known, near) => {
  expect(nearestName(name, known)).toBe(near);
});

test("a name with nothing near lists the arguments there are", () => {
  expect(unknownArgReason("NetworkVolume", "zzz", ["name", "size"])).toBe("zzz is not a NetworkVolume argument; its arguments are name, size");
});

test("the class's half passes on only what the kind does not have, wrapped as asked", () => {
  expect(undeclaredArgs({ image: "i", imagee: "j", gpu: 1 }, ["image", "gpu"])).toEqual({ imagee: "j" });
  expect(undeclaredArgs({ passwrd: "p" }, ["password"], (v) => ({ secret: v }))).toEqual({ passwrd: { secret: "p" } });
  expect(undeclaredArgs(undefined, ["x"])).toEqual({});
});

describe("every kind's check refuses a misspelled argument naming it and the nearest one", () => {
  const engine = { __provider: "shim", [LOGICAL_NAME_KEY]: "r" };
  test.each([
    ["Pod", () => checkPod(undefined, { ...engine, imagee: "app:1", image: "app:1", gpu: { id: "G", count: 1 } }), "imagee", "image"],
    ["NetworkVolume", () => checkNetworkVolume(undefined, { ...engine, size: 50, sizee: 60, dataCenter: "EU-RO-1" }), "sizee", "size"],
    ["RegistryCredential", () => checkRegistryCredential(undefined, { ...engine, username: "u", password: "p", passwrd: "p" }), "passwrd", "password"],
    ["Template", () => checkTemplate(undefined, { ...engine, image: "app:1", imageTag: "1" }), "imageTag", "image"],
    ["ServerlessEndpoint", () => checkEndpointInputs(undefined, { ...engine, gpuIds: "ADA_24", templateId: "t", wrokersMax: 2 }), "wrokersMax", "workersMax"],
  ])("%s", (kind, check, typo, near) => {
    expect(check().failures).toEqual([{ property: typo, reason: `${typo} is not a ${kind} argument; did you mean ${near}?` }]);
  });

  test("a value unknown at preview elsewhere does not hide the refusal (it names a key, not a value)", () => {
    const r = checkPod(undefined, { ...engine, image: UNKNOWN, gpu: UNKNOWN, imagee: "x" });
    expect(r.failures).toEqual([{ property: "imagee", reason: "imagee is not a Pod argument; did you mean image?" }]);
  });
});

// A refused catalog id or GPU tier gets the id it was probably meant to be, from the list the
// check already has (no request of its own).
const GPUS = ["NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 3090", "NVIDIA RTX A6000", "NVIDIA L40S", "NVIDIA A100 80GB PCIe", "NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3"];
test.each([
  // A missing word: the ids holding every word win over the nearest by letters (NVIDIA RTX A6000).
  ["NVIDIA RTX 4090", GPUS, ['"NVIDIA GeForce RTX 4090"']],
  ["RTX 4090", GPUS, ['"NVIDIA GeForce RTX 4090"']],
  ["nvidia l40s", GPUS, ['"NVIDIA L40S"']],
  ["H100", GPUS, ['"NVIDIA H100 80GB HBM3"']],
  // Two that hold every word equally: both offered.
  ["NVIDIA A100", GPUS, ['"NVIDIA A100 80GB PCIe"', '"NVIDIA A100-SXM4-80GB"']],
  // A typo: the nearest by letters.
  ["NVIDIA L40", GPUS, ['"NVIDIA L40S"']],
  ["cpu3-c", ["cpu3c", "cpu3g", "cpu5c"], ['"cpu3c"']],
  ["ADA24", ["AMPERE_16", "AMPERE_24", "ADA_24", "ADA_48_PRO"], ['"ADA_24"']],
  ["EU-RO1", ["EU-RO-1", "US-TX-3", "US-KS-2"], ['"EU-RO-1"']],
])("%s: did you mean %#", (given, known, meant) => {
  const said = didYouMean(given, known);
  expect(said).toBe(`did you mean ${meant.length === 1 ? meant[0] : `${meant.slice(0, -1).join(", ")} or ${meant.at(-1)}`}?`);
  expect(suggestIds(given, known)).toEqual(meant.map((m) => JSON.parse(m)));
});

test("nothing near: no suggestion", () => {
  expect(didYouMean("AMD MI300X", GPUS)).toBeUndefined();
  expect(suggestIds("", GPUS)).toEqual([]);
});

test("an endpoint's GPU tier near a known one is named in the refusal", () => {
  const reason = checkEndpointInputs(undefined, { name: "api", templateId: "tpl-1", gpuIds: "ADA24,AMPERE_48" }).failures?.[0]?.reason;
  expect(reason).toMatch(/^gpuIds .*\(for "ADA24", did you mean "ADA_24"\?\)$/);
});
