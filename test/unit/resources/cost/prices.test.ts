import type { CpuType, GpuType } from "../../../../src/client";
import { endpointOutputs, hourlyCostOf, inputsFromLive, localSettings, WORKER_PRICE_KEY } from "../../../../src/resources/serverless-endpoint/plan";
import { endpointPrice, perHour, PriceBook, podCpuPrice, podGpuPrice, tierPrice } from "../../../../src/resources/cost/prices";
import { MissingApiKeyError } from "../../../../src/client";

const gpu = (id: string, pool: string | null, secure: number): GpuType =>
  ({ id, name: id, pool, manufacturer: "NVIDIA", memory: 80, secure: true, community: true, price: { secure, community: secure * 0.8 }, maxCount: { secure: 8, community: 4 } }) as GpuType;
const GPUS = [gpu("A100 PCIe", "AMPERE_80", 1.64), gpu("A100 SXM", "AMPERE_80", 1.89), gpu("4090", "ADA_24", 0.69)];
const CPUS = [{ id: "cpu3c", price: { securePerVcpu: 0.03, serverlessPerVcpu: 0.025 } } as CpuType];

test("a pod: the GPU price for its cloud times count, or the vCPU price times vcpuCount; unknown ids price nothing", () => {
  expect(podGpuPrice(GPUS, { id: "A100 SXM", count: 2 }, "SECURE")).toBe(3.78);
  expect(podGpuPrice(GPUS, { id: "A100 SXM", count: 2 }, "COMMUNITY")).toBe(3.024);
  expect(podGpuPrice(GPUS, { id: "H200", count: 1 }, "SECURE")).toBeUndefined();
  expect(podCpuPrice(CPUS, { id: "cpu3c", vcpuCount: 8 })).toBe(0.24);
  expect(podCpuPrice(CPUS, { id: "cpu9z", vcpuCount: 8 })).toBeUndefined();
});

test("an endpoint: workersMin..workersMax at the first tier's highest price", () => {
  expect(tierPrice(GPUS, "AMPERE_80")).toBe(1.89);
  expect(endpointPrice(GPUS, { gpuIds: "AMPERE_80,ADA_24", workersMin: 1, workersMax: 3 })).toEqual({ min: 1.89, max: 5.67 });
  expect(endpointPrice(GPUS, { gpuIds: "AMPERE_16", workersMin: 0, workersMax: 3 })).toBeUndefined();
  // The tiers as written, with spaces after the commas and around the first.
  expect(endpointPrice(GPUS, { gpuIds: " ADA_24 , AMPERE_80", workersMin: 2, workersMax: 4 })).toEqual({ min: 1.38, max: 2.76 });
});

test("an endpoint whose workers have gpuCount GPUs: each worker costs that many", () => {
  expect(endpointPrice(GPUS, { gpuIds: "AMPERE_80", gpuCount: 2, workersMin: 1, workersMax: 3 })).toEqual({ min: 3.78, max: 11.34 });
  expect(endpointPrice(GPUS, { gpuIds: "AMPERE_80", gpuCount: 1, workersMin: 1, workersMax: 3 })).toEqual(endpointPrice(GPUS, { gpuIds: "AMPERE_80", workersMin: 1, workersMax: 3 }));
  const settings = localSettings({ [WORKER_PRICE_KEY]: { tier: "AMPERE_80", usd: 1.89 } } as never);
  expect(hourlyCostOf({ gpuIds: "AMPERE_80", gpuCount: 4, workersMin: 1, workersMax: 2 }, settings[WORKER_PRICE_KEY])).toEqual({ min: 7.56, max: 15.12 });
  // The platform reporting none is its default, one GPU.
  expect(hourlyCostOf({ gpuIds: "AMPERE_80", gpuCount: null, workersMin: 1, workersMax: 2 }, settings[WORKER_PRICE_KEY])).toEqual({ min: 1.89, max: 3.78 });
});

test("the catalog is read once per book, however many ask at once; a failed read is tried again", async () => {
  let calls = 0;
  let fail = true;
  const book = new PriceBook(() => ({
    catalog: {
      gpus: async () => {
        calls++;
        if (fail) throw new Error("down");
        return GPUS;
      },
      cpus: async () => CPUS,
    } as never,
  }));
  await expect(book.gpus()).rejects.toThrow("down");
  fail = false;
  const prices = await Promise.all([1, 2, 3].map((n) => book.pod({ gpu: { id: "4090", count: n }, cloud: "SECURE" })));
  expect(prices).toEqual([0.69, 1.38, 2.07]);
  expect(calls).toBe(2);
  expect(perHour(3.58)).toBe("$3.58/h");
});

/** A book over a catalog whose lists fail while `down.gpus` / `down.cpus` holds an error; counts its reads. */
function bookOf(down: { gpus?: Error; cpus?: Error } = {}) {
  const reads = { gpus: 0, cpus: 0 };
  const book = new PriceBook(() => ({
    catalog: {
      gpus: async () => {
        reads.gpus++;
        if (down.gpus) throw down.gpus;
        return GPUS;
      },
      cpus: async () => {
        reads.cpus++;
        if (down.cpus) throw down.cpus;
        return CPUS;
      },
    } as never,
  }));
  return { book, reads, down };
}

test("a CPU pod is priced from the CPU flavors, read once; a failed read is tried again; a pod with neither prices nothing", async () => {
  const { book, reads, down } = bookOf({ cpus: new Error("down") });
  await expect(book.pod({ cpu: { id: "cpu3c", vcpuCount: 8 }, cloud: "SECURE" })).rejects.toThrow("down");
  delete down.cpus;
  expect(await book.pod({ cpu: { id: "cpu3c", vcpuCount: 8 }, cloud: "SECURE" })).toBe(0.24);
  expect(await book.pod({ cpu: { id: "cpu3c", vcpuCount: 2 }, cloud: "SECURE" })).toBe(0.06);
  expect(reads).toEqual({ gpus: 0, cpus: 2 });
  expect(await book.pod({ cloud: "SECURE" })).toBeUndefined();
  expect(reads).toEqual({ gpus: 0, cpus: 2 });
});

test("the lists a pod's compute is checked against: only the kind it names; none when the catalog is down; a configuration error thrown", async () => {
  const { book, reads } = bookOf();
  expect(await book.lists({ gpu: "A100 SXM" })).toEqual({ gpus: GPUS, cpus: undefined });
  expect(reads).toEqual({ gpus: 1, cpus: 0 });
  expect(await book.lists({ cpu: "cpu3c" })).toEqual({ gpus: undefined, cpus: CPUS });
  expect(await book.lists({ gpu: "A100 SXM", cpu: "cpu3c" })).toEqual({ gpus: GPUS, cpus: CPUS });
  expect(reads).toEqual({ gpus: 1, cpus: 1 });

  const failing = bookOf({ gpus: new Error("503") });
  expect(await failing.book.lists({ gpu: "A100 SXM" })).toBeUndefined();
  failing.down.gpus = new MissingApiKeyError("no key");
  await expect(failing.book.lists({ gpu: "A100 SXM" })).rejects.toThrow(MissingApiKeyError);
});

test("an endpoint's hourlyCost output: from the worker price read for its first tier, none for another tier; a refresh keeps the price out of the inputs", () => {
  const ep = { id: "ep-1", name: "api", gpuIds: "AMPERE_80,ADA_24", templateId: "t", workersMin: 1, workersMax: 4 } as never;
  const settings = localSettings({ [WORKER_PRICE_KEY]: { tier: "AMPERE_80", usd: 1.89 } } as never);
  expect(endpointOutputs(ep, settings).hourlyCost).toEqual({ min: 1.89, max: 7.56 });
  expect(hourlyCostOf({ gpuIds: "ADA_24", workersMin: 1, workersMax: 2 }, { tier: "AMPERE_80", usd: 1.89 })).toBeUndefined();
  expect(inputsFromLive(ep, settings)).not.toHaveProperty(WORKER_PRICE_KEY);
});
