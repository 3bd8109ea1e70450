// The emulator's injected faults, seeded so that each run injects the same ones.
import type { Emulator } from "../../../../src/emulator";
import { client, FULL, RTX4090, start } from "../../../helpers/emulator-rest";

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
