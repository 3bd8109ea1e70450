import * as pulumi from "@pulumi/pulumi";
import type { ComputePlatform } from "../../../../src/client";
import {
  getBilling,
  getBillingOutput,
  getCpuFlavor,
  getCpuFlavorOutput,
  getCpuFlavors,
  getCpuFlavorsOutput,
  getDataCenter,
  getDataCenterOutput,
  getDataCenters,
  getDataCentersOutput,
  getGpuType,
  getGpuTypeOutput,
  getGpuTypes,
  getGpuTypesOutput,
  validVcpuCounts,
} from "../../../../src/resources/catalog";
import * as settings from "../../../../src/resources/engine/settings";

describe("validVcpuCounts", () => {
  test.each([
    [{ min: 2, max: 32 }, [2, 4, 8, 16, 32]],
    [{ min: 1, max: 8 }, [2, 4, 8]],
    [{ min: 4, max: 4 }, [4]],
    [{ min: 3, max: 12 }, [4, 8]],
    [{ min: 5, max: 7 }, []],
    [{ min: 2, max: 1 }, []],
    [{ min: 64, max: 100 }, [64]],
  ])("vcpu %j -> %j", (vcpu, want) => {
    expect(validVcpuCounts({ vcpu })).toEqual(want);
  });

  test("a huge max stops at the cap instead of looping", () => {
    const counts = validVcpuCounts({ vcpu: { min: 2, max: Number.MAX_SAFE_INTEGER } });
    expect(counts.at(-1)).toBe(2 ** 30);
    expect(counts).toHaveLength(30);
  });
});

// ---------------------------------------------------------------------------------------------
// The look-ups (docs/functions.md): each asks the client it is given, or the process-wide one
// with the stack config's settings, and narrows the answer by its filter. A fake client records
// what each is asked.

function fakeClient() {
  const asked: [string, unknown?][] = [];
  const answer = (name: string, value: unknown) => async (arg?: unknown) => (asked.push(arg === undefined ? [name] : [name, arg]), value);
  const client = {
    catalog: {
      gpus: answer("gpus", GPUS),
      gpu: answer("gpu", GPUS[0]),
      cpus: answer("cpus", [CPU]),
      cpu: answer("cpu", CPU),
      dataCenters: answer("dataCenters", DATA_CENTERS),
      dataCenter: answer("dataCenter", DATA_CENTERS[0]),
    },
    billing: {
      summary: answer("summary", { records: ["total"] }),
      pods: answer("pods", { records: ["pods"] }),
      networkVolumes: answer("networkVolumes", { records: ["networkVolumes"] }),
      endpoints: answer("endpoints", { records: ["endpoints"] }),
    },
  };
  return { client: client as unknown as ComputePlatform, asked };
}

const gpu = (id: string, manufacturer: string, memory: number) => ({ id, manufacturer, memory, price: { secure: 1, community: 0.5 } });
const GPUS = [gpu("NVIDIA L40S", "NVIDIA", 48), gpu("NVIDIA RTX A4000", "NVIDIA", 16), gpu("AMD Instinct MI300X", "AMD", 192), gpu("NVIDIA H100", "NVIDIA", 80)];
const CPU = { id: "cpu3c", vcpu: { min: 2, max: 32 } };
const DATA_CENTERS = [
  { id: "EU-RO-1", globalNetwork: true },
  { id: "US-TX-3", globalNetwork: false },
  { id: "CA-MTL-1", globalNetwork: true },
];
const ids = (records: { id: string }[]) => records.map((r) => r.id);

describe("getGpuTypes: every field of the filter given must match", () => {
  test.each([
    [undefined, ["NVIDIA L40S", "NVIDIA RTX A4000", "AMD Instinct MI300X", "NVIDIA H100"]],
    [{}, ["NVIDIA L40S", "NVIDIA RTX A4000", "AMD Instinct MI300X", "NVIDIA H100"]],
    [{ manufacturer: "AMD" as const }, ["AMD Instinct MI300X"]],
    [{ manufacturer: "NVIDIA" as const }, ["NVIDIA L40S", "NVIDIA RTX A4000", "NVIDIA H100"]],
    [{ minMemoryGb: 48 }, ["NVIDIA L40S", "AMD Instinct MI300X", "NVIDIA H100"]],
    [{ minMemoryGb: 49 }, ["AMD Instinct MI300X", "NVIDIA H100"]],
    [{ minMemoryGb: 0 }, ["NVIDIA L40S", "NVIDIA RTX A4000", "AMD Instinct MI300X", "NVIDIA H100"]],
    [{ manufacturer: "NVIDIA" as const, minMemoryGb: 80 }, ["NVIDIA H100"]],
    [{ manufacturer: "AMD" as const, minMemoryGb: 256 }, []],
  ])("%j", async (filter, want) => {
    const { client, asked } = fakeClient();
    expect(ids(await getGpuTypes(filter, { client }))).toEqual(want);
    expect(asked).toEqual([["gpus"]]);
  });
});

describe("getDataCenters: with or without global networking", () => {
  test.each([
    [undefined, ["EU-RO-1", "US-TX-3", "CA-MTL-1"]],
    [{}, ["EU-RO-1", "US-TX-3", "CA-MTL-1"]],
    [{ globalNetwork: true }, ["EU-RO-1", "CA-MTL-1"]],
    [{ globalNetwork: false }, ["US-TX-3"]],
  ])("%j", async (filter, want) => {
    const { client, asked } = fakeClient();
    expect(ids(await getDataCenters(filter, { client }))).toEqual(want);
    expect(asked).toEqual([["dataCenters"]]);
  });
});

test("the look-ups by id and the CPU list ask the client for that record, as it answers", async () => {
  const { client, asked } = fakeClient();
  expect(await getCpuFlavors({ client })).toEqual([CPU]);
  expect(await getCpuFlavor("cpu3c", { client })).toBe(CPU);
  expect(await getGpuType("NVIDIA L40S", { client })).toBe(GPUS[0]);
  expect(await getDataCenter("EU-RO-1", { client })).toBe(DATA_CENTERS[0]);
  expect(asked).toEqual([["cpus"], ["cpu", "cpu3c"], ["gpu", "NVIDIA L40S"], ["dataCenter", "EU-RO-1"]]);
});

describe("getBilling: `of` picks the billing path; a filter goes only with its own", () => {
  const window = { startTime: "2026-11-01T00:00:00Z", endTime: "2026-11-02T00:00:00Z", bucketSize: "hour" as const };
  test.each([
    ["nothing: the account's total, the platform's window", undefined, ["summary", {}]],
    ["the total", { of: "total" as const, ...window }, ["summary", window]],
    ["the last N buckets", { lastN: 3 }, ["summary", { lastN: 3 }]],
    ["per pod", { of: "pods" as const, ...window }, ["pods", window]],
    ["one pod", { of: "pods" as const, podId: "p1", lastN: 1 }, ["pods", { lastN: 1, podId: "p1" }]],
    ["per volume", { of: "networkVolumes" as const, lastN: 2 }, ["networkVolumes", { lastN: 2 }]],
    ["one volume", { of: "networkVolumes" as const, networkVolumeId: "v1" }, ["networkVolumes", { networkVolumeId: "v1" }]],
    ["per endpoint", { of: "endpoints" as const, ...window }, ["endpoints", window]],
  ])("%s", async (_what, query, want) => {
    const { client, asked } = fakeClient();
    const answer = await getBilling(query as never, { client });
    // Strictly: a filter not given is not sent as undefined either.
    expect(asked).toStrictEqual([want]);
    expect(answer).toEqual({ records: [want[0] === "summary" ? "total" : want[0]] });
  });

  test.each([
    [{ podId: "p1" }, 'getBilling: podId filters only of: "pods" (of is "total")'],
    [{ of: "endpoints", podId: "p1" }, 'getBilling: podId filters only of: "pods" (of is "endpoints")'],
    [{ networkVolumeId: "v1" }, 'getBilling: networkVolumeId filters only of: "networkVolumes" (of is "total")'],
    [{ of: "pods", networkVolumeId: "v1" }, 'getBilling: networkVolumeId filters only of: "networkVolumes" (of is "pods")'],
    [{ of: "gpus" }, 'getBilling: of must be one of total, pods, networkVolumes, endpoints (got "gpus")'],
  ])("%j is refused before any request", async (query, message) => {
    const { client, asked } = fakeClient();
    await expect(getBilling(query as never, { client })).rejects.toThrow(message);
    expect(asked).toEqual([]);
  });
});

describe("without a client: the process-wide one, with the stack config's settings", () => {
  let set: jest.SpyInstance;
  let asked: ReturnType<typeof fakeClient>["asked"];
  beforeEach(() => {
    const fake = fakeClient();
    asked = fake.asked;
    jest.spyOn(settings, "platform").mockReturnValue(fake.client);
    set = jest.spyOn(settings, "setPlatformSettings").mockImplementation(() => {});
  });
  afterEach(() => {
    jest.restoreAllMocks();
    pulumi.runtime.setAllConfig({});
  });

  test.each([
    [{ "computeplatform:apiKey": "cp_k", "computeplatform:apiUrl": "http://127.0.0.1:9" }, { apiKey: "cp_k", apiUrl: "http://127.0.0.1:9", serverlessUrl: undefined }],
    [{ "computeplatform:serverlessUrl": "http://127.0.0.1:8" }, { apiKey: undefined, apiUrl: undefined, serverlessUrl: "http://127.0.0.1:8" }],
    [{ "computeplatform:apiUrl": "http://127.0.0.1:9", "computeplatform:apiKey": "" }, { apiKey: undefined, apiUrl: "http://127.0.0.1:9", serverlessUrl: undefined }],
    [{ "computeplatform:apiKey": "cp_k" }, { apiKey: "cp_k", apiUrl: undefined, serverlessUrl: undefined }],
  ])("stack config %j: the settings %j", async (config, want) => {
    pulumi.runtime.setAllConfig(config);
    expect(ids(await getDataCenters({ globalNetwork: false }))).toEqual(["US-TX-3"]);
    expect(set.mock.calls).toEqual([[want]]);
    expect(asked).toEqual([["dataCenters"]]);
  });

  test("no stack config (outside a program, or none set): the settings made another way are left alone", async () => {
    pulumi.runtime.setAllConfig({ "computeplatform:apiKey": "", "other:apiKey": "x" });
    expect(await getCpuFlavors()).toEqual([CPU]);
    expect(set).not.toHaveBeenCalled();
  });

  test("a client given is asked, and the stack config is not read", async () => {
    pulumi.runtime.setAllConfig({ "computeplatform:apiKey": "cp_k" });
    const { client, asked: mine } = fakeClient();
    await getGpuType("NVIDIA L40S", { client });
    expect(mine).toEqual([["gpu", "NVIDIA L40S"]]);
    expect(asked).toEqual([]);
    expect(set).not.toHaveBeenCalled();
  });
});

describe("the Output forms: each look-up once its inputs are known", () => {
  /** The value of an output, once known. */
  const valueOf = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply((v) => (resolve(v), v)));

  test("each asks what its plain form asks, with the inputs' values", async () => {
    const { client, asked } = fakeClient();
    expect(await valueOf(getCpuFlavorsOutput({ client }))).toEqual([CPU]);
    expect(await valueOf(getCpuFlavorOutput(pulumi.output("cpu3c"), { client }))).toEqual(CPU);
    expect(ids(await valueOf(getGpuTypesOutput({ manufacturer: pulumi.output("AMD" as const) }, { client })))).toEqual(["AMD Instinct MI300X"]);
    expect(await valueOf(getGpuTypesOutput(undefined, { client }))).toHaveLength(4);
    expect(await valueOf(getGpuTypeOutput("NVIDIA L40S", { client }))).toEqual(GPUS[0]);
    expect(ids(await valueOf(getDataCentersOutput({ globalNetwork: pulumi.output(true) }, { client })))).toEqual(["EU-RO-1", "CA-MTL-1"]);
    expect(await valueOf(getDataCentersOutput(undefined, { client }))).toHaveLength(3);
    expect(await valueOf(getDataCenterOutput(pulumi.output("EU-RO-1"), { client }))).toEqual(DATA_CENTERS[0]);
    expect(asked).toEqual([["cpus"], ["cpu", "cpu3c"], ["gpus"], ["gpus"], ["gpu", "NVIDIA L40S"], ["dataCenters"], ["dataCenters"], ["dataCenter", "EU-RO-1"]]);
  });

  test("getBillingOutput: a Date window goes as its RFC 3339 text, a text as it is, and the pod's id once known", async () => {
    const { client, asked } = fakeClient();
    const start = new Date("2026-11-01T00:00:00Z");
    const answer = await valueOf(getBillingOutput({ of: "pods", startTime: start, endTime: "2026-11-02T00:00:00Z", podId: pulumi.output("p1") }, { client }));
    expect(answer).toEqual({ records: ["pods"] });
    expect(asked).toEqual([["pods", { startTime: "2026-11-01T00:00:00.000Z", endTime: "2026-11-02T00:00:00Z", podId: "p1" }]]);
    const end = new Date("2026-11-03T00:00:00Z");
    await valueOf(getBillingOutput({ endTime: end }, { client }));
    expect(asked[1]).toEqual(["summary", { endTime: "2026-11-03T00:00:00.000Z" }]);
    await valueOf(getBillingOutput(undefined, { client }));
    expect(asked[2]).toEqual(["summary", {}]);
  });

  test("a secret input leaves the answer secret", async () => {
    const { client } = fakeClient();
    const isSecret = (o: unknown) => (o as { isSecret: Promise<boolean> }).isSecret;
    expect(await isSecret(getGpuTypeOutput(pulumi.secret("NVIDIA L40S"), { client }))).toBe(true);
    expect(await isSecret(getGpuTypeOutput("NVIDIA L40S", { client }))).toBe(false);
  });
});
