// The emulator's state file: what survives a restart, and what a damaged file does.
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "../../../../src/emulator/core/state-file";
import { createServerlessTemplate } from "../../../helpers/emulator-fixtures";
import { client, FULL, RTX4090, start } from "../../../helpers/emulator-rest";

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(join(tmpdir(), "cp-emu-"));
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
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

  test("the clock's move survives a restart: a pod made after it reads made in the past, up, and billed", async () => {
    const file = join(dir, "clock.json");
    const H = 3_600_000;
    let now = Date.parse("2026-03-01T00:00:00Z");
    const clock = { now: () => now };
    const timings = { provisioningMs: 1000, startingMs: 1000 };
    const first = await start({ stateFile: file, clock, timings });
    const moved = await client(() => first).post("/emulator/clock", { advanceMs: 24 * H });
    expect(moved.body.advancedMs).toBe(24 * H);
    const pod = await client(() => first).createPod({ gpu: { id: RTX4090 } });
    await first.close();
    now += H;

    const second = await start({ stateFile: file, clock, timings });
    try {
      const api = client(() => second);
      const clockNow = (await api.get("/emulator/clock")).body;
      expect(clockNow).toMatchObject({ advancedMs: 24 * H, epochMs: now + 24 * H });
      const read = (await api.get(`/v2/pods/${pod.id}`)).body;
      expect(read.createdAt).toBe(pod.createdAt);
      expect(read.status).toBe("RUNNING");
      expect(read.runtime.uptime).toBe(H / 1000 - 2);
      const day = `startTime=${new Date(now).toISOString()}&endTime=${new Date(now + 48 * H).toISOString()}&podId=${pod.id}`;
      const billed = (await api.get(`/v2/billing/pods?${day}`)).body;
      expect(billed.metadata.totals.gpuAmount).toBeCloseTo(pod.cost, 6);
    } finally {
      await second.close();
    }
  });

  test("a state file written before the clock was kept loads, the clock unmoved", async () => {
    const file = join(dir, "no-clock.json");
    const first = await start({ stateFile: file });
    const pod = await client(() => first).createPod({ gpu: { id: RTX4090 } });
    await first.close();
    const saved = JSON.parse(fs.readFileSync(file, "utf8"));
    delete saved.clock;
    fs.writeFileSync(file, JSON.stringify(saved));
    const second = await start({ stateFile: file });
    try {
      const api = client(() => second);
      expect((await api.get("/emulator/clock")).body.advancedMs).toBe(0);
      expect((await api.get(`/v2/pods/${pod.id}`)).body.id).toBe(pod.id);
      // A move made in code is saved as one made over HTTP is.
      second.advanceClock(5000);
      expect(JSON.parse(fs.readFileSync(file, "utf8")).clock).toEqual({ advancedMs: 5000 });
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
      // The lock stays while the emulator runs (it goes at close); no temporary file stays.
      expect(fs.readdirSync(dir).filter((f) => f.includes("sync.json"))).toEqual(["sync.json", "sync.json.lock"]);
    } finally {
      await emu.close();
    }
  });

  test("reads write nothing: a GraphQL query from a write key leaves the file as it was; a mutation writes it", async () => {
    const file = join(dir, "reads.json");
    const emu = await start({ stateFile: file });
    const graphql = async (query: string) => {
      const res = await fetch(`${emu.url}/graphql`, {
        method: "POST",
        headers: { authorization: `Bearer ${FULL}`, "content-type": "application/json" },
        body: JSON.stringify({ query }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { data: any; errors?: unknown };
    };
    try {
      const tpl = await createServerlessTemplate(emu.url, FULL);
      const saved = await graphql(`mutation { saveEndpoint(input: { name: "ep", gpuIds: "ADA_24", templateId: "${tpl}" }) { id } }`);
      // Each save renames a fresh file over the target: a new inode is a write, whatever the clock.
      const written = fs.statSync(file).ino;
      const bytes = fs.readFileSync(file, "utf8");
      for (let i = 0; i < 5; i++) {
        const read = await graphql("{ myself { endpoints { id name pods { id desiredStatus } } serverlessDiscount { type } } }");
        expect(read.data.myself.endpoints.map((e: { id: string }) => e.id)).toEqual([saved.data.saveEndpoint.id]);
      }
      expect((await client(() => emu).get("/v2/pods")).status).toBe(200);
      expect(fs.statSync(file).ino).toBe(written);
      expect(fs.readFileSync(file, "utf8")).toBe(bytes);
      // A document that runs a mutation is still saved before its answer.
      const renamed = await graphql(`mutation { saveEndpoint(input: { id: "${saved.data.saveEndpoint.id}", name: "ep2", gpuIds: "ADA_24", templateId: "${tpl}" }) { id } }`);
      expect(renamed.errors).toBeUndefined();
      expect(fs.statSync(file).ino).not.toBe(written);
      expect(JSON.parse(fs.readFileSync(file, "utf8")).serverless.endpoints.map((e: { name: string }) => e.name)).toEqual(["ep2"]);
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

  test("a start sweeps the temporary files that saves cut short left beside its state file, and only those", async () => {
    const sub = fs.mkdtempSync(join(dir, "sweep-"));
    const file = join(sub, "state.json");
    // A save killed after its bytes were written and before the rename: its temporary file stays.
    const killedAfterWrite = {
      openSync: fs.openSync,
      writeSync: (fd: number, data: string) => fs.writeSync(fd, data),
      fsyncSync: fs.fsyncSync,
      closeSync: fs.closeSync,
      renameSync: () => {
        throw new Error("killed");
      },
      rmSync: () => undefined,
    };
    expect(() => writeFileAtomic(file, "{}", killedAfterWrite)).toThrow("killed");
    fs.writeFileSync(join(sub, ".state.json.4242.17.tmp"), "x".repeat(4096)); // another process's
    const others = [".other.json.4242.1.tmp", "state.json.4242.1.tmp", ".state.json.bak", ".state.json.x.1.tmp", ".state.json.1.tmp", "notes.txt"];
    for (const f of others) fs.writeFileSync(join(sub, f), "kept");
    const leftovers = fs.readdirSync(sub).filter((f) => !others.includes(f));
    expect(leftovers).toHaveLength(2);

    const emu = await start({ stateFile: file });
    try {
      const now = fs.readdirSync(sub);
      expect(now.filter((f) => leftovers.includes(f))).toEqual([]);
      expect(now.filter((f) => others.includes(f)).sort()).toEqual([...others].sort());
      expect(JSON.parse(fs.readFileSync(file, "utf8")).version).toBe(1);
    } finally {
      await emu.close();
    }
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
    // Left as it was, and no lock held for a start that did not happen.
    expect(fs.readFileSync(file, "utf8")).toBe('{"version":99}');
    expect(fs.readdirSync(dir).filter((f) => f.includes("torn.json"))).toEqual(["torn.json"]);
  });
});
