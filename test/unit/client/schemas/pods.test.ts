// The pods' schemas (schemas/pods.ts): a create's rules across fields (a GPU or a CPU pod, never
// both; one kind of mount; what a CPU pod cannot have), an update that changes no hardware, and
// the pod as the contract's examples show it.
import type { z } from "zod";
import { schemas } from "../../../../src/client";
import { contractExample } from "../../../helpers/contract";

const problems = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("a create", () => {
  const gpuPod = () => contractExample("createPod", "request", "gpuPod");
  const cpuPod = () => ({ ...gpuPod(), gpu: undefined, cpu: { id: "cpu3c", vcpuCount: 4 } });
  const create = (body: unknown) => problems(schemas.PodCreateParamsSchema, body);

  test("the contract's GPU pod passes, and so does a CPU pod", () => {
    expect(create(gpuPod())).toEqual([]);
    expect(create(cpuPod())).toEqual([]);
  });

  test("exactly one of gpu or cpu: neither and both are refused at gpu", () => {
    expect(create({ ...gpuPod(), gpu: undefined })).toEqual(["gpu: exactly one of gpu or cpu must be set"]);
    expect(create({ ...gpuPod(), cpu: { id: "cpu3c", vcpuCount: 4 } })).toEqual(["gpu: exactly one of gpu or cpu must be set"]);
  });

  test("a persistent or a network mount, not both; a network list holds one volume and is never empty", () => {
    const persistent = { size: 20, path: "/workspace" };
    const network = [{ volumeId: "vol-1", path: "/data" }];
    expect(create({ ...gpuPod(), mounts: { persistent } })).toEqual([]);
    expect(create({ ...gpuPod(), mounts: { network } })).toEqual([]);
    expect(create({ ...gpuPod(), mounts: { persistent, network } })).toEqual(["mounts: may set persistent or network, not both"]);
    expect(create({ ...gpuPod(), mounts: { network: [] } })).toEqual(["mounts.network: must not be empty (leave it out instead)"]);
    expect(create({ ...gpuPod(), mounts: { network: [...network, { volumeId: "vol-2", path: "/more" }] } })).toEqual([expect.stringMatching(/^mounts.network: /)]);
    expect(create({ ...gpuPod(), mounts: { persistent: { size: 9, path: "/w" } } })).toEqual([expect.stringMatching(/^mounts.persistent.size: /)]);
  });

  test("a CPU pod mounts only a network volume and has no global networking", () => {
    expect(create({ ...cpuPod(), mounts: { persistent: { size: 20, path: "/w" } } })).toEqual(["mounts.persistent: is invalid on a CPU pod (use a network mount)"]);
    expect(create({ ...cpuPod(), mounts: { network: [{ volumeId: "vol-1", path: "/data" }] } })).toEqual([]);
    expect(create({ ...cpuPod(), globalNetworking: true })).toEqual(["globalNetworking: requires a GPU pod"]);
    expect(create({ ...cpuPod(), globalNetworking: false })).toEqual([]);
    expect(create({ ...gpuPod(), globalNetworking: true })).toEqual([]);
  });

  test("ports are <port>/<protocol>; a GPU count is at least 1; nothing outside the contract is sent", () => {
    expect(create({ ...gpuPod(), ports: ["8888/http", "22/tcp"] })).toEqual([]);
    expect(create({ ...gpuPod(), ports: ["8888"] })).toEqual(["ports.0: must be formatted <port>/<protocol>, e.g. 8888/http"]);
    expect(create({ ...gpuPod(), gpu: { id: "NVIDIA A100", count: 0 } })).toEqual([expect.stringMatching(/^gpu.count: /)]);
    expect(create({ ...gpuPod(), spot: true })).toEqual([expect.stringMatching(/spot/)]);
  });
});

test("an update renames, changes the container or the mounts, locks; it changes no hardware", () => {
  const update = (body: unknown) => problems(schemas.PodUpdateParamsSchema, body);
  expect(update(contractExample("updatePod", "request", "renamePod"))).toEqual([]);
  expect(update({ image: "img:2", env: { A: "1" }, locked: true, globalNetworking: true, mounts: {} })).toEqual([]);
  for (const field of ["gpu", "cpu", "cloud", "dataCenterIds"]) expect(update({ [field]: null })).toEqual([expect.stringMatching(new RegExp(field))]);
  expect(update({ image: "" })).toEqual([expect.stringMatching(/^image: /)]);
});

describe("the pod", () => {
  const pod = () => contractExample("getPod", "200", "pod");
  const read = (body: unknown) => problems(schemas.PodSchema, body);

  test("the contract's examples read: a GPU pod, or a CPU pod with no gpu", () => {
    expect(read(pod())).toEqual([]);
    expect(read(contractExample("createPod", "201", "pod"))).toEqual([]);
    expect(read({ ...pod(), gpu: undefined, cpu: { id: "cpu3c", vcpuCount: 4, memory: 8 } })).toEqual([]);
  });

  test("a status and actions are the contract's; times carry an offset; runtime and a start may be null", () => {
    expect(read({ ...pod(), status: "SLEEPING" })).toEqual([expect.stringMatching(/^status: /)]);
    expect(read({ ...pod(), actions: ["pause"] })).toEqual([expect.stringMatching(/^actions.0: /)]);
    expect(read({ ...pod(), createdAt: "2026-06-01 12:00" })).toEqual([expect.stringMatching(/^createdAt: /)]);
    expect(read({ ...pod(), runtime: null, startedAt: null })).toEqual([]);
    expect(read({ ...pod(), globalNetworking: undefined })).toEqual([expect.stringMatching(/^globalNetworking: /)]);
  });

  test("the action body is one of the four actions", () => {
    expect(problems(schemas.PodActionRequestSchema, contractExample("podAction", "request", "startPod"))).toEqual([]);
    expect(problems(schemas.PodActionRequestSchema, { action: "pause" })).toEqual([expect.stringMatching(/^action: /)]);
  });
});
