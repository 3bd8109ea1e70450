// Hostile requests at the emulator's http pipeline, over real HTTP: a body past 64 MiB is
// answered 413 (or the socket cut) before authentication, without the unexpected-error handler;
// the exchange recorder keeps no key whichever spelling of the GraphQL path carried it.
import * as http from "node:http";
import { FULL, sharedEmulator } from "../../../../helpers/emulator-rest";

const { emu, api } = sharedEmulator({ recordExchanges: 100 });

/** Sends `mib` MiB to `path` (headers as given); resolves with the status, or the client's error code. */
function sendHuge(path: string, mib: number, headers: Record<string, string>): Promise<{ status?: number; body?: string; error?: string }> {
  const u = new URL(emu().url);
  return new Promise((resolve) => {
    let answered = false;
    const req = http.request(
      { host: u.hostname, port: u.port, method: "POST", path, agent: false, headers: { "content-type": "application/json", "content-length": String(mib * 1024 * 1024), ...headers } },
      (res) => {
        answered = true;
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode, body }));
        res.on("error", () => resolve({ status: res.statusCode, body }));
      },
    );
    req.on("error", (e: NodeJS.ErrnoException) => {
      if (!answered) resolve({ error: e.code ?? e.message });
    });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const write = (): void => {
      while (sent < mib) {
        sent++;
        if (!req.write(chunk)) {
          req.once("drain", write);
          return;
        }
      }
      req.end();
    };
    write();
  });
}

describe("a body past 64 MiB", () => {
  let errors: jest.SpyInstance;
  beforeEach(() => {
    errors = jest.spyOn(console, "error").mockImplementation(() => undefined);
  });
  afterEach(() => errors.mockRestore());

  test.each([
    ["no key", {}],
    ["an unknown key", { authorization: "Bearer cp_not_a_key" }],
    ["a valid key", { authorization: `Bearer ${FULL}` }],
  ])("with %s: 413 (or the socket cut) before authentication, never the unexpected-error handler", async (_what, headers) => {
    const before = emu().requestLog().length;
    const r = await sendHuge("/v2/pods", 65, headers);
    if (r.status !== undefined) {
      expect(r.status).toBe(413);
      expect(JSON.parse(r.body!)).toMatchObject({ status: 413, detail: expect.stringContaining("67108864 bytes") });
    } else {
      expect(["ECONNRESET", "EPIPE"]).toContain(r.error);
    }
    expect(errors).not.toHaveBeenCalled();
    // Logged as a 413 with no key: authentication never ran.
    const entries = emu().requestLog().slice(before);
    expect(entries.map((e) => [e.path, e.status, e.key])).toEqual([["/v2/pods", 413, null]]);
    expect((await api.get("/v2/catalog/gpus")).status).toBe(200);
  });
});

describe("the exchange recorder keeps no key", () => {
  test.each(["/graphql", "/graphql/", "/%67raphql", "//graphql", "/graphql//"])("?api_key= on %s is not recorded", async (path) => {
    const res = await fetch(`${emu().url}${path}?api_key=${FULL}&x=1`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ myself { endpoints { id } } }" }),
    });
    expect(res.status).toBe(200);
    const recorded = emu().exchanges().at(-1)!;
    expect(recorded.op).toBe("myself");
    expect(recorded.query).toBe("");
    expect(JSON.stringify(emu().exchanges())).not.toContain(FULL);
  });

  test("a REST call keeps its query, with any api_key value replaced", async () => {
    await api.get(`/v2/billing?bucketSize=day&api_key=${FULL}`);
    await api.get(`/v2/billing?bucketSize=day&API_KEY=${FULL}`);
    await api.get("/v2/billing?bucketSize=day");
    const [a, b, c] = emu().exchanges().slice(-3);
    expect([a.query, b.query, c.query]).toEqual(["?bucketSize=day&api_key=%5Bredacted%5D", "?bucketSize=day&API_KEY=%5Bredacted%5D", "?bucketSize=day"]);
  });

  test("an unrouted or refused request keeps no query", async () => {
    await fetch(`${emu().url}/graphqlx?api_key=${FULL}`, { method: "POST" });
    await fetch(`${emu().url}/graphql?api_key=${FULL}`, { method: "GET" });
    expect(emu().exchanges().slice(-2).map((e) => [e.status, e.query])).toEqual([
      [404, ""],
      [405, ""],
    ]);
    expect(JSON.stringify(emu().exchanges())).not.toContain(FULL);
  });
});
