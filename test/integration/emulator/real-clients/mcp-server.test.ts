// The platform's official MCP server (@runpod/mcp-server, pinned in devDependencies) manages an
// endpoint over REST v2 against the emulator, driven over stdio by the MCP client of
// @modelcontextprotocol/sdk (the server's own dependency). The server reads its base URL from
// RUNPOD_API_BASE_URL, so no preload is needed: it is pointed at the loopback emulator, and
// its analytics stay off (they send only when POSTHOG_API_KEY is set, which the child's
// environment does not carry).
//
// It speaks the later revision of the /v2/serverless bodies (`type: "QUEUE"`,
// `scaling: { type, queueDelay }`, `workers.idleTimeout`), which the emulator accepts as the
// contract's spellings (src/emulator/serverless/rest/dialect.ts).
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type Emulator, startEmulator } from "../../../../src/emulator";

const KEY = "cp_test_mcp_0123456789";
const SERVER = join(__dirname, "../../../../node_modules/@runpod/mcp-server/dist/stdio.mjs");

let emu: Emulator;
let client: Client;
let stderr = "";

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    keys: [{ key: KEY, scopes: ["read", "write"] }],
    quotas: { minute: 100000, hour: 1000000, day: 10000000 },
    timings: { provisioningMs: 10, startingMs: 400, drainMs: 30 },
  });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER],
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", RUNPOD_API_KEY: KEY, RUNPOD_API_BASE_URL: emu.url },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (d) => {
    stderr += String(d);
  });
  client = new Client({ name: "computeplatform-test", version: "1.0.0" });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  await emu?.close();
});

/** One tool call: the HTTP status the server saw and the JSON it relayed. */
async function call(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; body: any }> {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text: string }[] };
  const text = result.content.find((c) => c.type === "text")?.text ?? "null";
  return { isError: result.isError === true, body: JSON.parse(text) };
}

test("the server lists the serverless tools it will use", async () => {
  const names = (await client.listTools()).tools.map((t) => t.name);
  expect(names).toEqual(
    expect.arrayContaining(["create-endpoint", "get-endpoint", "update-endpoint", "list-endpoint-workers", "delete-endpoint"]),
  );
});

test("create, get, a sparse update, workers reaching IDLE, delete refused at min/max not 0, then 204 at 0/0", async () => {
  const created = await call("create-endpoint", {
    body: {
      name: "mcp-ep",
      type: "QUEUE",
      image: "worker:mcp",
      env: { MODEL: "sdxl" },
      gpu: { pools: ["ADA_24"], count: 1 },
      workers: { min: 0, max: 2, idleTimeout: 7 },
      scaling: { type: "QUEUE_DELAY", queueDelay: 4 },
    },
  });
  expect(created.isError).toBe(false);
  const id = created.body.id as string;
  expect(created.body).toMatchObject({ name: "mcp-ep", type: "QUEUE_BASED", image: "worker:mcp", workers: { min: 0, max: 2 } });
  expect(created.body.scaling).toEqual({ type: "QUEUE_DELAY", value: 4, idleTimeout: 7 });

  const got = await call("get-endpoint", { id });
  expect(got.body).toMatchObject({ id, name: "mcp-ep", gpu: { pools: ["ADA_24"], count: 1 }, env: { MODEL: "sdxl" } });

  // Sparse: only workers.min changes; name, image, scaling and max are kept.
  const updated = await call("update-endpoint", { id, body: { workers: { min: 1 } } });
  expect(updated.isError).toBe(false);
  expect(updated.body).toMatchObject({ name: "mcp-ep", image: "worker:mcp", workers: { min: 1, max: 2 }, scaling: got.body.scaling });

  const statuses: string[] = [];
  const deadline = Date.now() + 10_000;
  for (;;) {
    const w = await call("list-endpoint-workers", { id });
    statuses.push(...w.body.workers.map((x: any) => x.status));
    if (w.body.summary.idle === 1) break;
    if (Date.now() > deadline) throw new Error(`no IDLE worker within 10 s; saw ${statuses.join(",")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(statuses[0]).toBe("INITIALIZING");
  expect(statuses.at(-1)).toBe("IDLE");

  // No worker listed any more, but max is still 2: refused.
  await call("update-endpoint", { id, body: { workers: { min: 0 } } });
  expect((await call("list-endpoint-workers", { id })).body.workers).toEqual([]);
  const refused = await call("delete-endpoint", { id });
  expect(refused.isError).toBe(true);
  expect(refused.body).toMatchObject({ status: 409, detail: expect.stringMatching(/workers\.min=0 and workers\.max=2; set both to 0/) });
  expect((await call("get-endpoint", { id })).body.id).toBe(id);

  await call("update-endpoint", { id, body: { workers: { max: 0 } } });
  const deleted = await call("delete-endpoint", { id });
  expect(deleted.isError).toBe(false);
  expect(deleted.body).toEqual({ status: 204 });
  expect((await call("get-endpoint", { id })).isError).toBe(true);

  // The create went out in the later revision's spelling, as the server sends it.
  const sent = emu.exchanges().find((x) => x.method === "POST" && x.path === "/v2/serverless")?.requestBody;
  expect(sent).toMatchObject({ type: "QUEUE", workers: { idleTimeout: 7 }, scaling: { queueDelay: 4 } });

  // Every call went over REST v2 to the emulator (none over GraphQL), the refusal a 409.
  const log = emu.requestLog().filter((e) => e.path.startsWith("/v2/serverless"));
  expect(log.filter((e) => e.op === "deleteEndpoint").map((e) => e.status)).toEqual([409, 204]);
  expect(emu.counts().graphql ?? 0).toBe(0);
  expect(stderr).not.toContain(KEY);
});
