// The emulator under load, and across its own start and stop.
import * as http from "node:http";
import { client, FULL, RTX4090, start } from "../../helpers/emulator-rest";

/** Runs `fn` with `limit` calls in flight at most; every request loop here is bounded by `n`. */
async function pool<T>(n: number, limit: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

describe("load", () => {
  test("200 concurrent requests (creates, reads, lists) all succeed", async () => {
    const emu = await start();
    try {
      const api = client(() => emu);
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          i % 4 === 0
            ? api.post("/v2/pods", { name: `c${i}`, image: "img", gpu: { id: RTX4090 } })
            : i % 4 === 1
              ? api.get("/v2/pods")
              : i % 4 === 2
                ? api.post("/v2/network-volumes", { name: `v${i}`, size: 10, dataCenter: "US-TX-3" })
                : api.get("/v2/catalog/gpus"),
        ),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s >= 300)).toEqual([]);
      expect((await api.get("/v2/pods")).body.pods).toHaveLength(50);
      const ids = new Set(emu.state().pods.map((p) => p.id));
      expect(ids.size).toBe(50);
    } finally {
      await emu.close();
    }
  });

  test("the request log stays bounded (1000 entries) over 10,000 requests; counts stay exact", async () => {
    const emu = await start();
    try {
      // node:http with a keep-alive agent: fetch would spend most of the time in the client.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
      const { hostname, port } = new URL(emu.url);
      const get = () =>
        new Promise<number>((resolve, reject) => {
          const req = http.get(
            { host: hostname, port, path: "/v2/catalog/cpus", agent, headers: { authorization: `Bearer ${FULL}` } },
            (res) => {
              res.resume();
              res.on("end", () => resolve(res.statusCode ?? 0));
            },
          );
          req.on("error", reject);
        });
      const statuses = await pool(10_000, 64, get);
      agent.destroy();
      expect(statuses.every((s) => s === 200)).toBe(true);
      const log = emu.requestLog();
      expect(log).toHaveLength(1000);
      expect(emu.counts().listCpus).toBe(10_000);
      // Oldest first, and the newest entry is the last request.
      const times = log.map((e) => Date.parse(e.at));
      expect([...times].sort((a, b) => a - b)).toEqual(times);
    } finally {
      await emu.close();
    }
  });

  test("requestLogSize bounds the log to the size asked", async () => {
    const emu = await start({ requestLogSize: 3 });
    try {
      const api = client(() => emu);
      for (const path of ["/v2/catalog/cpus", "/v2/catalog/gpus", "/v2/catalog/datacenters", "/v2/pods", "/v2/network-volumes"]) {
        await api.get(path);
      }
      expect(emu.requestLog().map((e) => e.op)).toEqual(["listDataCenters", "listPods", "listNetworkVolumes"]);
    } finally {
      await emu.close();
    }
  });
});

describe("lifecycle of the server", () => {
  test("close() cuts idle keep-alive connections and resolves; the port stops answering", async () => {
    const emu = await start();
    const api = client(() => emu);
    await api.get("/v2/pods"); // leaves a keep-alive socket in fetch's pool
    await emu.close();
    await expect(fetch(`${emu.url}/v2/pods`, { headers: { authorization: `Bearer ${FULL}` } })).rejects.toThrow();
    await emu.close(); // idempotent
  });

  test("close() resolves while a slowed response is pending", async () => {
    const emu = await start({ faults: { slowMs: 60_000 } });
    const pending = fetch(`${emu.url}/v2/pods`, { headers: { authorization: `Bearer ${FULL}` } }).catch((e) => e);
    await new Promise((r) => setTimeout(r, 50));
    await emu.close();
    // fetch rejects with a TypeError from another realm, so match on shape, not class.
    expect(await pending).toMatchObject({ name: "TypeError" });
  });
});
