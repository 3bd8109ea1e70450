// Shared by the REST conformance tests: a started emulator with millisecond timings, and a
// `fetch` wrapper that returns status, headers and the parsed body.
import { type Emulator, type EmulatorOptions, startEmulator } from "../../src/emulator";

export const FULL = "cp_test_full_rest_0123456789";
export const READ_ONLY = "cp_test_read_rest_0123456789";
export const TIMINGS = { provisioningMs: 20, startingMs: 20, drainMs: 20, restartDelayMs: 20 };
/** Quotas no conformance test reaches: polling spends requests. */
export const BIG_QUOTAS = { minute: 1_000_000, hour: 10_000_000, day: 100_000_000 };

export const RTX4090 = "NVIDIA GeForce RTX 4090";
export const A100 = "NVIDIA A100 80GB PCIe";
export const MI300X = "AMD Instinct MI300X";

export function start(options: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({
    port: 0,
    keys: [
      { key: FULL, scopes: ["read", "write"] },
      { key: READ_ONLY, scopes: ["read"] },
    ],
    quotas: BIG_QUOTAS,
    timings: TIMINGS,
    ...options,
  });
}

export interface Res {
  status: number;
  headers: Headers;
  body: any;
}

export interface CallOptions {
  key?: string | null;
  headers?: Record<string, string>;
  raw?: string;
}

export function client(emu: () => Emulator) {
  const call = async (method: string, path: string, body?: unknown, opts: CallOptions = {}): Promise<Res> => {
    const key = opts.key === undefined ? FULL : opts.key;
    const headers: Record<string, string> = { ...opts.headers };
    if (key !== null) headers.authorization = `Bearer ${key}`;
    const hasBody = body !== undefined || opts.raw !== undefined;
    if (hasBody && !("content-type" in headers)) headers["content-type"] = "application/json";
    const res = await fetch(`${emu().url}${path}`, {
      method,
      headers,
      body: opts.raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
  const api = {
    call,
    get: (path: string, opts?: CallOptions) => call("GET", path, undefined, opts),
    post: (path: string, body: unknown, opts?: CallOptions) => call("POST", path, body, opts),
    patch: (path: string, body: unknown, opts?: CallOptions) => call("PATCH", path, body, opts),
    del: (path: string, opts?: CallOptions) => call("DELETE", path, undefined, opts),
    /** Creates a pod and fails the test unless the platform answers 201. */
    async createPod(body: Record<string, unknown>): Promise<any> {
      const r = await call("POST", "/v2/pods", { name: "p", image: "img:1", ...body });
      if (r.status !== 201) throw new Error(`createPod -> ${r.status}: ${JSON.stringify(r.body)}`);
      return r.body;
    },
    async createVolume(dataCenter = "US-TX-3", size = 10): Promise<any> {
      const r = await call("POST", "/v2/network-volumes", { name: "vol", size, dataCenter });
      if (r.status !== 201) throw new Error(`createNetworkVolume -> ${r.status}: ${JSON.stringify(r.body)}`);
      return r.body;
    },
    /** Polls the pod until its status is `status`; bounded so a broken emulator fails fast. */
    async waitFor(id: string, status: string, limitMs = 3000): Promise<any> {
      const deadline = Date.now() + limitMs;
      const seen: string[] = [];
      for (;;) {
        const r = await call("GET", `/v2/pods/${id}`);
        if (r.body?.status !== seen[seen.length - 1]) seen.push(r.body?.status);
        if (r.body?.status === status) return Object.assign(r.body, { __seen: seen });
        if (Date.now() > deadline) throw new Error(`pod ${id} not ${status} within ${limitMs} ms; saw ${seen.join(" -> ")}`);
        await new Promise((res) => setTimeout(res, 3));
      }
    },
  };
  return api;
}

/** The statuses a pod went through, as `waitFor` observed them. */
export const seen = (pod: any): string[] => pod.__seen;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A problem+json answer with `status`, a title and a detail. */
export function expectProblem(r: { status: number; headers: Headers; body: any }, status: number): void {
  expect(r.status).toBe(status);
  expect(r.headers.get("content-type")).toBe("application/problem+json");
  expect(r.body).toEqual(
    expect.objectContaining({ title: expect.any(String), status, detail: expect.any(String) }),
  );
}

/**
 * One emulator for a whole test file: started before its tests, closed after them. `emu()` is
 * the running emulator; `api` calls it.
 */
export function sharedEmulator(options: EmulatorOptions = {}): { emu: () => Emulator; api: ReturnType<typeof client> } {
  let running: Emulator | undefined;
  beforeAll(async () => {
    running = await start(options);
  });
  afterAll(async () => {
    await running?.close();
  });
  const emu = (): Emulator => {
    if (!running) throw new Error("the emulator runs only while the file's tests do");
    return running;
  };
  return { emu, api: client(emu) };
}
