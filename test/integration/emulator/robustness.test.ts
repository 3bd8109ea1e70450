// The emulator under load, across restarts, with faults, and as a command.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Emulator } from "../../../src/emulator";
import { writeFileAtomic } from "../../../src/emulator/state-file";
import { createServerlessTemplate } from "../../helpers/emulator-fixtures";
import { client, FULL, RTX4090, start } from "./rest-helpers";

const REPO = join(__dirname, "../../..");
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(join(tmpdir(), "cp-emu-"));
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

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

describe("state file", () => {
  test("pods, volumes, endpoints and id counters survive a restart", async () => {
    const file = join(dir, "survive.json");
    const first = await start({ stateFile: file });
    const api1 = client(() => first);
    const vol = await api1.createVolume("US-KS-2", 25);
    const pod = await api1.createPod({
      name: "kept",
      gpu: { id: RTX4090 },
      env: { A: "1" },
      mounts: { network: [{ volumeId: vol.id, path: "/data" }] },
    });
    const gone = await api1.createPod({ name: "gone", gpu: { id: RTX4090 } });
    await api1.del(`/v2/pods/${gone.id}`);
    const tpl = await createServerlessTemplate(first.url, FULL);
    await fetch(`${first.url}/graphql?api_key=${FULL}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: `mutation { saveEndpoint(input: { name: "ep", gpuIds: "ADA_24", templateId: "${tpl}" }) { id } }` }),
    });
    await first.close();

    const second = await start({ stateFile: file });
    try {
      const api2 = client(() => second);
      const again = await api2.get(`/v2/pods/${pod.id}`);
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ name: "kept", dataCenterId: "US-KS-2", mounts: pod.mounts, env: pod.env });
      expect((await api2.get(`/v2/pods/${gone.id}`)).body.status).toBe("TERMINATED");
      expect((await api2.get(`/v2/network-volumes/${vol.id}`)).body).toEqual(vol);
      expect(second.state().endpoints.map((e: any) => e.name)).toContain("ep");
      expect(second.state().templates.map((t) => t.id)).toEqual([tpl]);
      const fresh = await api2.createPod({ gpu: { id: RTX4090 } });
      expect([pod.id, gone.id]).not.toContain(fresh.id);
      const newVol = await api2.createVolume();
      expect(newVol.id).not.toBe(vol.id);
    } finally {
      await second.close();
    }
  });

  test("timers resume from persisted timestamps: a pod created before the restart is RUNNING after it", async () => {
    const file = join(dir, "resume.json");
    let now = Date.parse("2026-03-01T00:00:00Z");
    const clock = { now: () => now };
    const timings = { provisioningMs: 1000, startingMs: 1000 };
    const first = await start({ stateFile: file, clock, timings });
    const pod = await client(() => first).createPod({ gpu: { id: RTX4090 } });
    await first.close();
    now += 1500;
    const second = await start({ stateFile: file, clock, timings });
    try {
      const api2 = client(() => second);
      expect((await api2.get(`/v2/pods/${pod.id}`)).body.status).toBe("STARTING");
      now += 500;
      const running = (await api2.get(`/v2/pods/${pod.id}`)).body;
      expect(running.status).toBe("RUNNING");
      expect(Date.parse(running.startedAt)).toBe(Date.parse(pod.createdAt) + 2000);
    } finally {
      await second.close();
    }
  });

  test("every change is on disk before the response: the file parses and holds the pod, no temp files left", async () => {
    const file = join(dir, "sync.json");
    const emu = await start({ stateFile: file });
    try {
      const api = client(() => emu);
      for (let i = 0; i < 20; i++) {
        const pod = await api.createPod({ name: `n${i}`, gpu: { id: RTX4090 } });
        const saved = JSON.parse(fs.readFileSync(file, "utf8"));
        expect(saved.pods.map((p: any) => p.id)).toContain(pod.id);
      }
      expect(fs.readdirSync(dir).filter((f) => f.includes("sync.json"))).toEqual(["sync.json"]);
    } finally {
      await emu.close();
    }
  });

  test("writes are atomic: a write that fails before the rename leaves the old file whole and no temp file", () => {
    const file = join(dir, "atomic.json");
    writeFileAtomic(file, '{"version":"old"}');
    const io = {
      openSync: fs.openSync,
      writeSync: (fd: number, data: string) => fs.writeSync(fd, data.slice(0, 5)), // a torn write
      fsyncSync: fs.fsyncSync,
      closeSync: fs.closeSync,
      renameSync: () => {
        throw Object.assign(new Error("EIO: simulated crash"), { code: "EIO" });
      },
      rmSync: fs.rmSync,
    };
    expect(() => writeFileAtomic(file, '{"version":"new"}', io)).toThrow(/simulated crash/);
    expect(fs.readFileSync(file, "utf8")).toBe('{"version":"old"}');
    expect(fs.readdirSync(dir).filter((f) => f.includes("atomic.json"))).toEqual(["atomic.json"]);
  });

  test("an unwritable state-file path fails at start, not on the first change", async () => {
    await expect(start({ stateFile: join(dir, "no-such-dir", "state.json") })).rejects.toThrow(/ENOENT/);
  });

  test("a torn or foreign state file refuses to start with a clear error (nothing is silently lost)", async () => {
    const file = join(dir, "torn.json");
    fs.writeFileSync(file, '{"version":1,"pods":[{"id"');
    await expect(start({ stateFile: file })).rejects.toThrow(/torn\.json is not valid JSON/);
    fs.writeFileSync(file, '{"version":99}');
    await expect(start({ stateFile: file })).rejects.toThrow(/version 99/);
  });
});

describe("faults (seeded)", () => {
  async function statuses(emu: Emulator, n: number): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const res = await fetch(`${emu.url}/v2/catalog/gpus`, { headers: { authorization: `Bearer ${FULL}` } });
      await res.arrayBuffer();
      out.push(res.status);
    }
    return out;
  }

  test("faults are off by default", async () => {
    const emu = await start();
    try {
      expect((await statuses(emu, 50)).every((s) => s === 200)).toBe(true);
    } finally {
      await emu.close();
    }
  });

  test("rate5xx answers 500/502/503 at the rate asked, and the same seed gives the same sequence", async () => {
    const a = await start({ faults: { seed: 42, rate5xx: 0.3 } });
    const b = await start({ faults: { seed: 42, rate5xx: 0.3 } });
    try {
      const sa = await statuses(a, 300);
      const sb = await statuses(b, 300);
      expect(sa).toEqual(sb);
      const failed = sa.filter((s) => s !== 200);
      expect(failed.length / 300).toBeGreaterThan(0.2);
      expect(failed.length / 300).toBeLessThan(0.4);
      expect(new Set(failed)).toEqual(new Set([500, 502, 503]));
    } finally {
      await a.close();
      await b.close();
    }
  });

  test("an injected 5xx is problem+json and carries the rate-limit headers", async () => {
    const emu = await start({ faults: { rate5xx: 1 } });
    try {
      const r = await client(() => emu).get("/v2/pods");
      expect([500, 502, 503]).toContain(r.status);
      expect(r.headers.get("content-type")).toBe("application/problem+json");
      expect(r.headers.get("ratelimit")).toMatch(/^"minute";/);
    } finally {
      await emu.close();
    }
  });

  test("rate429 storms at the rate asked: 429 with Retry-After and a detail naming the minute window", async () => {
    const emu = await start({ faults: { seed: 7, rate429: 0.5 } });
    try {
      const s = await statuses(emu, 200);
      const share = s.filter((x) => x === 429).length / 200;
      expect(share).toBeGreaterThan(0.4);
      expect(share).toBeLessThan(0.6);
      emu.setFaults({ rate429: 1 });
      const r = await client(() => emu).get("/v2/pods");
      expect(r.status).toBe(429);
      expect(r.headers.get("retry-after")).toBe("1");
      expect(r.headers.get("ratelimit")).toMatch(/^"minute";r=0;t=1, /);
      expect(r.body.detail).toMatch(/minute/);
    } finally {
      await emu.close();
    }
  });

  test("dropAfterProcessRate: the create happens, then the connection is cut without a response", async () => {
    const emu = await start({ faults: { dropAfterProcessRate: 1 } });
    try {
      const attempt = fetch(`${emu.url}/v2/pods`, {
        method: "POST",
        headers: { authorization: `Bearer ${FULL}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "ambiguous", image: "img", gpu: { id: RTX4090 } }),
      });
      await expect(attempt).rejects.toThrow();
      expect(emu.state().pods.map((p) => p.name)).toEqual(["ambiguous"]);
      const last = emu.requestLog().at(-1)!;
      expect(last).toMatchObject({ op: "createPod", status: 201, dropped: true });
      emu.setFaults({});
      const list = await client(() => emu).get("/v2/pods");
      expect(list.body.pods.map((p: any) => p.name)).toEqual(["ambiguous"]);
    } finally {
      await emu.close();
    }
  });

  test("dropAfterProcessRate drops at the rate asked", async () => {
    const emu = await start({ faults: { seed: 3, dropAfterProcessRate: 0.25 } });
    try {
      let dropped = 0;
      for (let i = 0; i < 200; i++) {
        try {
          const res = await fetch(`${emu.url}/v2/catalog/cpus`, { headers: { authorization: `Bearer ${FULL}` } });
          await res.arrayBuffer();
        } catch {
          dropped++;
        }
      }
      expect(dropped / 200).toBeGreaterThan(0.15);
      expect(dropped / 200).toBeLessThan(0.35);
      expect(emu.requestLog().filter((e) => e.dropped)).toHaveLength(dropped);
    } finally {
      await emu.close();
    }
  });

  test("slowMs delays every authenticated response by at least that long", async () => {
    const emu = await start({ faults: { slowMs: 120 } });
    try {
      const t0 = performance.now();
      expect((await client(() => emu).get("/v2/pods")).status).toBe(200);
      expect(performance.now() - t0).toBeGreaterThanOrEqual(115);
    } finally {
      await emu.close();
    }
  });

  test("setFaults changes faults at run time; {} turns them all off", async () => {
    const emu = await start();
    try {
      emu.setFaults({ rate5xx: 1 });
      expect((await statuses(emu, 5)).every((s) => s >= 500)).toBe(true);
      emu.setFaults({});
      expect((await statuses(emu, 5)).every((s) => s === 200)).toBe(true);
      expect(() => emu.setFaults({ rate429: 2 })).toThrow(/between 0 and 1/);
    } finally {
      await emu.close();
    }
  });

  test("faults do not touch requests that fail auth", async () => {
    const emu = await start({ faults: { rate5xx: 1 } });
    try {
      expect((await client(() => emu).get("/v2/pods", { key: null })).status).toBe(401);
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

  test("startEmulator rejects bad options with the option's name", async () => {
    await expect(start({ timeScale: 0 })).rejects.toThrow(/timeScale/);
    await expect(start({ quotas: { minute: 0 } })).rejects.toThrow(/quotas\.minute/);
    await expect(start({ timings: { startingMs: -1 } })).rejects.toThrow(/timings\.startingMs/);
    await expect(start({ keys: [] })).rejects.toThrow(/keys/);
  });
});

describe("the computeplatform-emulator command (dist/emulator/cli.js; `npm test` builds first)", () => {
  const cli = join(REPO, "dist/emulator/cli.js");
  const node = process.execPath;

  function run(args: string[]): { child: ReturnType<typeof spawn>; output: () => string } {
    const child = spawn(node, [cli, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout!.on("data", (d) => {
      text += d;
    });
    child.stderr!.on("data", (d) => {
      text += d;
    });
    return { child, output: () => text };
  }

  async function until(cond: () => boolean, limitMs = 10_000): Promise<void> {
    const deadline = Date.now() + limitMs;
    while (!cond()) {
      if (Date.now() > deadline) throw new Error("timed out waiting for the emulator command");
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  const exited = (child: ReturnType<typeof spawn>) =>
    new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  test("the bin starts with a node shebang", () => {
    expect(fs.readFileSync(join(REPO, "src/emulator/cli.ts"), "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
  });

  test("--help lists every option", async () => {
    const { child, output } = run(["--help"]);
    expect(await exited(child)).toBe(0);
    for (const flag of [
      "--port", "--host", "--key", "--state-file", "--quota-minute", "--quota-hour", "--quota-day", "--provisioning-ms",
      "--starting-ms", "--drain-ms", "--time-scale", "--seed", "--rate-429", "--rate-5xx", "--drop-rate", "--slow-ms",
      "--error-image", "--no-capacity",
    ]) {
      expect(output()).toContain(flag);
    }
  });

  test("an unknown flag exits 2 with a message", async () => {
    const { child, output } = run(["--bogus"]);
    expect(await exited(child)).toBe(2);
    expect(output()).toMatch(/bogus/);
  });

  test("it prints its address, a working key and the env vars; keys, quotas and faults apply; SIGTERM closes it", async () => {
    const { child, output } = run([
      "--port", "0", "--key", "cp_cli_full", "--key", "cp_cli_ro:read", "--quota-minute", "3", "--time-scale", "10",
      "--no-capacity", `${RTX4090}@US-TX-3`,
    ]);
    try {
      await until(() => /COMPUTEPLATFORM_API_KEY=/.test(output()));
      const url = /export COMPUTEPLATFORM_API_URL=(\S+)/.exec(output())![1];
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(output()).toContain("export COMPUTEPLATFORM_API_KEY=cp_cli_full");
      const h = { authorization: "Bearer cp_cli_full", "content-type": "application/json" };
      const created = await fetch(`${url}/v2/pods`, {
        method: "POST",
        headers: h,
        body: JSON.stringify({ name: "x", image: "i", gpu: { id: RTX4090 }, dataCenterIds: ["US-TX-3"] }),
      });
      expect(created.status).toBe(400);
      expect(created.headers.get("ratelimit-policy")).toMatch(/^"minute";q=3;w=6, /);
      const ro = await fetch(`${url}/v2/network-volumes`, {
        method: "POST",
        headers: { ...h, authorization: "Bearer cp_cli_ro" },
        body: JSON.stringify({ name: "v", size: 10, dataCenter: "US-TX-3" }),
      });
      expect(ro.status).toBe(403);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited(child)).toBe(0);
  });
});
