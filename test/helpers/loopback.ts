import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ComputePlatform, type ComputePlatformOptions, PacingRegistry } from "../../src/client";
import { FakeClock } from "./fake-clock";

/** One request the loopback server saw. */
export interface SeenRequest {
  method: string;
  path: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  /** The client's port: one value across requests means one kept-alive connection. */
  remotePort: number | undefined;
}

/** What a handler answers; `destroy` drops the socket after the request was read (and handled). */
export type Reply =
  | { status: number; body?: unknown; headers?: Record<string, string | undefined>; raw?: string }
  | { destroy: true }
  | { hang: true };

export type Handler = (req: SeenRequest, index: number) => Reply | Promise<Reply>;

/**
 * A real HTTP server on a free loopback port whose answers a test scripts: the precise
 * faults (a create processed, then the socket destroyed; an `r=0` window) the client must
 * survive, with every request recorded.
 */
export async function startLoopback(handler: Handler) {
  const seen: SeenRequest[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const entry: SeenRequest = {
      method: req.method ?? "",
      path: url.pathname,
      url: req.url ?? "",
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
      remotePort: req.socket.remotePort,
    };
    seen.push(entry);
    const reply = await handler(entry, seen.length - 1);
    if ("destroy" in reply) {
      req.socket.destroy();
      return;
    }
    if ("hang" in reply) {
      hanging.push(res);
      return;
    }
    const text = reply.raw ?? (reply.body === undefined ? "" : JSON.stringify(reply.body));
    const headers: Record<string, string> = {
      "content-type": reply.status >= 400 ? "application/problem+json" : "application/json",
    };
    for (const [name, value] of Object.entries(reply.headers ?? {})) if (value !== undefined) headers[name] = value;
    res.writeHead(reply.status, headers);
    res.end(reply.status === 204 ? undefined : text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    count: (method: string, path: string) => seen.filter((r) => r.method === method && r.path === path).length,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A wire-valid Pod for scripted answers. */
export function wirePod(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "pod-1",
    name: "trainer",
    status: "PROVISIONING",
    actions: ["start", "terminate"],
    image: "img:1",
    args: "",
    disk: 20,
    mounts: {},
    ports: [],
    env: {},
    registry: null,
    gpu: { id: "NVIDIA A100", count: 1 },
    cloud: "SECURE",
    dataCenterId: "US-1",
    template: null,
    cost: 1.5,
    locked: false,
    runtime: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    startedAt: null,
    globalNetworking: { enabled: false },
    ...over,
  };
}

/** A wire-valid Template for scripted answers. */
export function wireTemplate(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
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
  };
}

/** A wire-valid Endpoint (GraphQL `myself`) for scripted answers. */
export function wireEndpoint(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "ep-good",
    name: "good",
    templateId: "tpl-1",
    gpuIds: "AMPERE_16",
    workersMin: 0,
    workersMax: 1,
    idleTimeout: 5,
    scalerType: "QUEUE_DELAY",
    scalerValue: 4,
    locations: null,
    networkVolumeId: null,
    pods: [],
    ...over,
  };
}

/** A wire-valid GpuType of the catalog for scripted answers. */
export function wireGpuType(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "NVIDIA GeForce RTX 4090",
    name: "RTX 4090",
    pool: "ADA_24",
    manufacturer: "NVIDIA",
    memory: 24,
    secure: true,
    community: false,
    price: { secure: 0.69, community: 0 },
    maxCount: { secure: 8, community: 0 },
    ...over,
  };
}

/**
 * Scripted loopback servers and clients for one test file: `setup(handler)` starts a server
 * and a client pointed at it (REST, GraphQL and runsync alike, fake clock, own pacing);
 * everything is closed after each test.
 */
export function loopbackClients(apiKey: string) {
  const servers: { close(): Promise<void> }[] = [];
  const clients: ComputePlatform[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  const track = (cp: ComputePlatform) => {
    clients.push(cp);
    return cp;
  };
  const setup = async (handler: Handler, opts: Partial<ComputePlatformOptions> = {}) => {
    const srv = await startLoopback(handler);
    servers.push(srv);
    const cp = track(
      new ComputePlatform({
        apiKey,
        apiUrl: srv.url,
        serverlessUrl: srv.url,
        clock: new FakeClock(),
        pacing: new PacingRegistry(),
        random: () => 0.5,
        env: {},
        ...opts,
      }),
    );
    return { srv, cp };
  };
  return { setup, track };
}
