import {
  ComputePlatform,
  ConflictError,
  InternalServerError,
  PacingRegistry,
  RequestValidationError,
  UnprocessableEntityError,
} from "../../../src/client";
import { FakeClock } from "../../helpers/fake-clock";
import { type Handler, type SeenRequest, startLoopback } from "../../helpers/loopback";

// Each new REST method against a scripted loopback server: the path, verb, query string and
// body it sends, and what it makes of the answer.

const KEY = "cp_test_loopback_key_0013";
const servers: { close(): Promise<void> }[] = [];
const clients: ComputePlatform[] = [];

async function setup(handler: Handler, lines: string[] = []) {
  const srv = await startLoopback(handler);
  servers.push(srv);
  const cp = new ComputePlatform({
    apiKey: KEY,
    apiUrl: srv.url,
    clock: new FakeClock(),
    pacing: new PacingRegistry(),
    random: () => 0.5,
    logger: { debug: (line) => lines.push(line) },
    env: {},
  });
  clients.push(cp);
  return { srv, cp };
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const body = (r: SeenRequest) => JSON.parse(r.body);
const query = (r: SeenRequest) => Object.fromEntries(new URL(r.url, "http://x").searchParams);

const wireTemplate = (over: Record<string, unknown> = {}) => ({
  id: "tpl-1",
  name: "worker",
  image: "img:1",
  args: "",
  disk: 20,
  mounts: {},
  ports: [],
  env: {},
  registry: null,
  serverless: true,
  public: false,
  category: "NVIDIA",
  ...over,
});

describe("templates", () => {
  test("create POSTs the params as given and answers the Template", async () => {
    const { srv, cp } = await setup(() => ({ status: 201, body: wireTemplate() }));
    const params = {
      name: "worker",
      image: "img:1",
      serverless: true,
      disk: 20,
      ports: ["8000/http"],
      env: { A: "1" },
      mounts: { persistent: { size: 20, path: "/workspace" } },
      category: "NVIDIA" as const,
    };
    await expect(cp.templates.create(params)).resolves.toMatchObject({ id: "tpl-1", serverless: true });
    expect(srv.seen.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /v2/templates"]);
    expect(body(srv.seen[0])).toEqual(params);
  });

  test("get, list, update and delete: one request each, the id percent-encoded", async () => {
    const { srv, cp } = await setup((r) =>
      r.method === "DELETE"
        ? { status: 204 }
        : r.path === "/v2/templates"
          ? { status: 200, body: { templates: [wireTemplate(), wireTemplate({ id: "tpl-2", serverless: false })] } }
          : { status: 200, body: wireTemplate({ name: "renamed" }) },
    );
    await expect(cp.templates.get("tpl/1 x")).resolves.toMatchObject({ id: "tpl-1" });
    await expect(cp.templates.list()).resolves.toHaveLength(2);
    await expect(cp.templates.update("tpl-1", { name: "renamed", mounts: {} })).resolves.toMatchObject({ name: "renamed" });
    await expect(cp.templates.delete("tpl-1")).resolves.toBeUndefined();
    expect(srv.seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /v2/templates/tpl%2F1%20x",
      "GET /v2/templates",
      "PATCH /v2/templates/tpl-1",
      "DELETE /v2/templates/tpl-1",
    ]);
    expect(body(srv.seen[2])).toEqual({ name: "renamed", mounts: {} });
  });

  test("params outside the contract fail before anything is sent, naming the field", async () => {
    const { srv, cp } = await setup(() => ({ status: 201, body: wireTemplate() }));
    const cases: [unknown, string][] = [
      [{ name: "t" }, "image is required"],
      [{ name: "t", image: "i", mounts: { network: [{ volumeId: "v", path: "/d" }] } }, "mounts.network is not an allowed property"],
      [{ name: "t", image: "i", mounts: { persistent: { size: 5, path: "/w" } } }, "mounts.persistent.size must be >= 10"],
      [{ name: "t", image: "i", category: "TPU" }, "category must be one of"],
      [{ name: "t", image: "i", gpu: { id: "x" } }, "gpu is not an allowed property"],
    ];
    for (const [params, message] of cases) {
      const err = await cp.templates.create(params as never).catch((e) => e);
      expect(err).toBeInstanceOf(RequestValidationError);
      expect(err.message).toContain(message);
    }
    const err = await cp.templates.update("tpl-1", { name: "" }).catch((e) => e);
    expect(err.message).toContain("name must be at least 1 character(s) long");
    expect(srv.seen).toHaveLength(0);
  });

  test("a create that failed ambiguously finds the template by name, image and kind instead of making two", async () => {
    const { srv, cp } = await setup((r) =>
      r.method === "POST"
        ? { status: 503, body: { title: "Service Unavailable", status: 503, detail: "down" } }
        : { status: 200, body: { templates: [wireTemplate({ id: "pod-kind", serverless: false }), wireTemplate({ id: "tpl-9" })] } },
    );
    await expect(cp.templates.create({ name: "worker", image: "img:1", serverless: true })).resolves.toMatchObject({ id: "tpl-9" });
    expect(srv.count("POST", "/v2/templates")).toBe(1);
  });

  test("deleting a template in use is a ConflictError naming the user; a create's 422 names the field", async () => {
    const { cp } = await setup((r) =>
      r.method === "DELETE"
        ? { status: 409, body: { title: "Conflict", status: 409, detail: "template tpl-1 is used by endpoint ep-1" } }
        : { status: 422, body: { title: "Unprocessable Entity", status: 422, detail: "x", errors: ["$: missing property 'image'"] } },
    );
    const del = await cp.templates.delete("tpl-1").catch((e) => e);
    expect(del).toBeInstanceOf(ConflictError);
    expect(del.message).toContain("used by endpoint ep-1");
    const create = await cp.templates.create({ name: "t", image: "i" }).catch((e) => e);
    expect(create).toBeInstanceOf(UnprocessableEntityError);
    expect(create.message).toContain("image is required");
  });
});

describe("registries", () => {
  const CREDENTIALS = { name: "private", username: "robot$deployer", password: "s3cr3t-Pa55\"word/+" };

  test("create POSTs name, username and password; get, list and delete use their paths", async () => {
    const { srv, cp } = await setup((r) =>
      r.method === "DELETE"
        ? { status: 204 }
        : r.path === "/v2/registries"
          ? r.method === "POST"
            ? { status: 201, body: { id: "reg-1", name: "private" } }
            : { status: 200, body: { registries: [{ id: "reg-1", name: "private" }] } }
          : { status: 200, body: { id: "reg-1", name: "private" } },
    );
    const created = await cp.registries.create(CREDENTIALS);
    expect(created).toEqual({ id: "reg-1", name: "private" });
    await expect(cp.registries.get("reg 1")).resolves.toEqual(created);
    await expect(cp.registries.list()).resolves.toEqual([created]);
    await expect(cp.registries.delete("reg-1")).resolves.toBeUndefined();
    expect(srv.seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /v2/registries",
      "POST /v2/registries",
      "GET /v2/registries/reg%201",
      "GET /v2/registries",
      "DELETE /v2/registries/reg-1",
    ]);
    expect(body(srv.seen[1])).toEqual(CREDENTIALS);
  });

  test("an ambiguous create finds the new credential by name, never an older one of the same name", async () => {
    const registries = [{ id: "reg-old", name: "private" }];
    const { srv, cp } = await setup((r) => {
      if (r.method === "GET") return { status: 200, body: { registries } };
      registries.push({ id: "reg-new", name: "private" });
      return { destroy: true };
    });
    await expect(cp.registries.create(CREDENTIALS)).resolves.toEqual({ id: "reg-new", name: "private" });
    expect(srv.count("POST", "/v2/registries")).toBe(1);
  });

  test("an ambiguous create that made nothing is not answered with an older credential of the same name", async () => {
    const { srv, cp } = await setup((r) =>
      r.method === "GET"
        ? { status: 200, body: { registries: [{ id: "reg-old", name: "private" }] } }
        : srv.count("POST", "/v2/registries") === 1
          ? { status: 503, body: { title: "Service Unavailable", status: 503, detail: "down" } }
          : { status: 201, body: { id: "reg-new", name: "private" } },
    );
    await expect(cp.registries.create(CREDENTIALS)).resolves.toEqual({ id: "reg-new", name: "private" });
    expect(srv.count("POST", "/v2/registries")).toBe(2);
  });

  test("username and password never reach an error or a log line, even when the server echoes them", async () => {
    const lines: string[] = [];
    // A server that echoes the request body back (raw and as JSON) in every error it writes.
    const { cp } = await setup(
      (r) =>
        r.method === "GET"
          ? { status: 200, body: { registries: [] } }
          : {
              status: 422,
              body: { title: "Unprocessable Entity", status: 422, detail: `rejected ${r.body}`, errors: [`$.password: '${CREDENTIALS.password}' too weak`] },
            },
      lines,
    );
    const err = await cp.registries.create(CREDENTIALS).catch((e) => e);
    expect(err).toBeInstanceOf(UnprocessableEntityError);
    const seen = [err.message, err.detail, ...err.errors, JSON.stringify(err), String(err.stack), ...lines].join("\n");
    expect(seen).toContain("[REDACTED]");
    for (const secret of [CREDENTIALS.username, CREDENTIALS.password, JSON.stringify(CREDENTIALS.password).slice(1, -1)]) {
      expect(seen).not.toContain(secret);
    }
    expect(lines.length).toBeGreaterThan(0);
  });

  test("a short password is masked where it stands as a token of its own", async () => {
    const { cp } = await setup((r) =>
      r.method === "GET"
        ? { status: 200, body: { registries: [] } }
        : { status: 400, body: { title: "Bad Request", status: 400, detail: "user bob with password x9 rejected" } },
    );
    const err = await cp.registries.create({ name: "private", username: "bob", password: "x9" }).catch((e) => e);
    expect(err.message).toContain("user [REDACTED] with password [REDACTED] rejected");
  });

  test("an ambiguous create whose look-up fails says so without the credentials", async () => {
    // The list before the create answers; everything after fails, echoing the password.
    const { srv, cp } = await setup((_r, i) =>
      i === 0 ? { status: 200, body: { registries: [] } } : { status: 500, body: { title: "Internal", status: 500, detail: `boom ${CREDENTIALS.password}` } },
    );
    const err = await cp.registries.create(CREDENTIALS).catch((e) => e);
    expect(err.name).toBe("AmbiguousRequestError");
    expect(err.cause).toBeInstanceOf(InternalServerError);
    expect(`${err.message} ${err.cause.message}`).not.toContain(CREDENTIALS.password);
    expect(srv.count("POST", "/v2/registries")).toBe(1);
  });

  test("invalid params fail before anything is sent, without echoing the values", async () => {
    const { srv, cp } = await setup(() => ({ status: 201, body: { id: "r", name: "n" } }));
    const err = await cp.registries.create({ name: "n", username: "", password: "hunter2-secret", extra: 1 } as never).catch((e) => e);
    expect(err).toBeInstanceOf(RequestValidationError);
    expect(err.message).toContain("username must be at least 1 character(s) long");
    expect(err.message).toContain("extra is not an allowed property");
    expect(err.message).not.toContain("hunter2-secret");
    expect(srv.seen).toHaveLength(0);
  });

  test("deleting a credential a pod uses is a ConflictError", async () => {
    const { cp } = await setup(() => ({ status: 409, body: { title: "Conflict", status: 409, detail: "registry reg-1 is used by pod pod-1" } }));
    await expect(cp.registries.delete("reg-1")).rejects.toBeInstanceOf(ConflictError);
  });
});

describe("billing", () => {
  const range = { startTime: "2026-06-01T00:00:00Z", endTime: "2026-06-02T00:00:00Z" };
  const echo = { ...range, bucketSize: "day" };
  const zeros = (...names: string[]) => Object.fromEntries(names.map((n) => [n, 0]));
  const podAmounts = zeros("totalAmount", "gpuAmount", "cpuAmount", "diskAmount");
  const volumeAmounts = zeros("totalAmount", "standardAmount", "highPerformanceAmount");
  const allAmounts = zeros(
    "totalAmount", "podGpuAmount", "podCpuAmount", "podDiskAmount", "serverlessGpuAmount", "serverlessCpuAmount",
    "serverlessDiskAmount", "serverlessFeeAmount", "storageStandardAmount", "storageHighPerformanceAmount",
    "endpointAmount", "clusterGpuAmount", "clusterDiskAmount", "clusterNetworkingAmount",
  );
  const answers: Record<string, unknown> = {
    "/v2/billing": { records: [{ ...range, ...allAmounts, totalAmount: 1.5 }], metadata: { query: echo, recordCount: 1, totals: allAmounts } },
    "/v2/billing/pods": {
      records: [{ ...range, ...podAmounts, podId: "pod-1", gpuAmount: 2.5, totalAmount: 2.5 }],
      metadata: { query: { ...echo, podId: "pod-1" }, recordCount: 1, uniquePodCount: 1, totals: podAmounts },
    },
    "/v2/billing/networkvolumes": {
      records: [{ ...range, ...volumeAmounts, networkVolumeId: "vol-1" }],
      metadata: { query: { ...echo, networkVolumeId: null }, recordCount: 1, uniqueNetworkVolumeCount: 1, totals: volumeAmounts },
    },
    "/v2/billing/endpoints": { records: [], metadata: { query: echo, recordCount: 0, totals: { totalAmount: 0 } } },
  };
  const handler: Handler = (r) => ({ status: 200, body: answers[r.path] });

  test("each route GETs its path with the window, bucket size and filter in the query string", async () => {
    const { srv, cp } = await setup(handler);
    const summary = await cp.billing.summary({ lastN: 7, bucketSize: "day" });
    expect(summary.records[0].totalAmount).toBe(1.5);
    const pods = await cp.billing.pods({ startTime: new Date(range.startTime), endTime: range.endTime, bucketSize: "hour", podId: "pod 1" });
    expect(pods.records[0]).toMatchObject({ podId: "pod-1", gpuAmount: 2.5 });
    const volumes = await cp.billing.networkVolumes({ networkVolumeId: "vol-1" });
    expect(volumes.metadata.uniqueNetworkVolumeCount).toBe(1);
    const endpoints = await cp.billing.endpoints();
    expect(endpoints.metadata.totals.totalAmount).toBe(0);

    expect(srv.seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /v2/billing",
      "GET /v2/billing/pods",
      "GET /v2/billing/networkvolumes",
      "GET /v2/billing/endpoints",
    ]);
    expect(srv.seen.map(query)).toEqual([
      { lastN: "7", bucketSize: "day" },
      { startTime: "2026-06-01T00:00:00.000Z", endTime: range.endTime, bucketSize: "hour", podId: "pod 1" },
      { networkVolumeId: "vol-1" },
      {},
    ]);
    expect(srv.seen[1].url).toContain("podId=pod+1");
    expect(srv.seen[3].url).toBe("/v2/billing/endpoints");
    expect(srv.seen.every((r) => r.body === "")).toBe(true);
  });

  test("a window the contract forbids fails before anything is sent, naming the rule", async () => {
    const { srv, cp } = await setup(handler);
    const cases: [() => Promise<unknown>, string][] = [
      [() => cp.billing.summary({ lastN: 3, startTime: range.startTime }), "lastN cannot be combined with startTime or endTime"],
      [() => cp.billing.pods({ lastN: 0 }), "lastN must be >= 1"],
      [() => cp.billing.pods({ startTime: "yesterday" }), "startTime is invalid"],
      [() => cp.billing.pods({ startTime: new Date(Number.NaN) }), "startTime is invalid"],
      [() => cp.billing.networkVolumes({ startTime: range.endTime, endTime: range.startTime }), "endTime must be after startTime"],
      [() => cp.billing.endpoints({ bucketSize: "minute" as never }), "bucketSize must be one of"],
      [() => cp.billing.summary({ podId: "p" } as never), "podId is not an allowed property"],
    ];
    for (const [call, message] of cases) {
      const err = await call().then(() => new Error("expected a rejection"), (e: Error) => e);
      expect(err).toBeInstanceOf(RequestValidationError);
      expect(err.message).toContain(message);
    }
    expect(srv.seen).toHaveLength(0);
  });

  test("a record that breaks the contract is a ResponseValidationError naming the field", async () => {
    const { cp } = await setup(() => ({ status: 200, body: { records: [{ ...range, totalAmount: "1" }], metadata: {} } }));
    const err = await cp.billing.endpoints().catch((e) => e);
    expect(err.name).toBe("ResponseValidationError");
    expect(err.message).toContain("records[0].totalAmount is invalid");
    expect(err.message).toContain("metadata.query is required");
  });

  test("billing reads are retried like any GET", async () => {
    const { srv, cp } = await setup((r, i) => (i === 0 ? { status: 503, body: { title: "x", status: 503, detail: "down" } } : handler(r, i)));
    await expect(cp.billing.pods()).resolves.toMatchObject({ metadata: { uniquePodCount: 1 } });
    expect(srv.count("GET", "/v2/billing/pods")).toBe(2);
  });
});
