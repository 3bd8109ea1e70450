import type { Clock } from "../../../../src/client/core/clock";
import { Poller, type StatusRead, WaitTimeoutError } from "../../../../src/resources/lifecycle/poller";

/**
 * A clock whose time moves only when every pending promise has settled: it then jumps to the
 * earliest timer. A "wait ten minutes" runs in microseconds, and the order of events is exact.
 */
class FakeClock implements Clock {
  t = 0;
  private timers: { at: number; resolve: () => void }[] = [];
  private scheduled = false;
  now(): number {
    return this.t;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = { at: this.t + Math.max(0, ms), resolve };
      this.timers.push(timer);
      signal?.addEventListener(
        "abort",
        () => {
          this.timers = this.timers.filter((x) => x !== timer);
          reject(signal.reason);
        },
        { once: true },
      );
      this.schedule();
    });
  }
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.timers.length === 0) return;
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers.shift()!;
      this.t = Math.max(this.t, next.at);
      next.resolve();
      this.schedule();
    });
  }
}

type P = { id: string; status: string };

/** Pods whose status follows a timeline: [until ms, status] pairs, then the last status forever. */
function fleet(clock: FakeClock, timelines: Record<string, [number, string][]>) {
  const calls: number[] = [];
  const list = async (): Promise<P[]> => {
    calls.push(clock.now());
    const out: P[] = [];
    for (const [id, steps] of Object.entries(timelines)) {
      const step = steps.find(([until]) => clock.now() < until) ?? steps[steps.length - 1];
      if (step[1] !== "GONE") out.push({ id, status: step[1] });
    }
    return out;
  };
  return { list, calls };
}

const running = (p: P | undefined) => (p?.status === "RUNNING" ? "done" : "pending") as "done" | "pending";
// The pod's slow phase, as the pod provider gives it.
const timings = { intervalMs: 1000, maxIntervalMs: 8000, backoff: 2, noun: "pod", slow: (p: { status?: string } | undefined) => p?.status === "PROVISIONING" };

describe("the shared pod poller", () => {
  test("N waiting pods cost one list per tick, not one call per pod", async () => {
    const clock = new FakeClock();
    const life: [number, string][] = [[10_000, "PROVISIONING"], [15_000, "STARTING"], [Infinity, "RUNNING"]];
    const one = fleet(clock, { a: life });
    const p1 = new Poller(one.list, clock, timings);
    await p1.wait("a", { until: running, timeoutMs: 60_000, description: "RUNNING" });

    const clock5 = new FakeClock();
    const five = fleet(clock5, { a: life, b: life, c: life, d: life, e: life });
    const p5 = new Poller(five.list, clock5, timings);
    const done = await Promise.all(
      ["a", "b", "c", "d", "e"].map((id) => p5.wait(id, { until: running, timeoutMs: 60_000, description: "RUNNING" })),
    );
    expect(done.map((p) => p?.status)).toEqual(Array(5).fill("RUNNING"));
    expect(five.calls.length).toBe(one.calls.length);
    expect(p5.waiting).toBe(0);
  });

  test("ticks back off while PROVISIONING and return to the interval after", async () => {
    const clock = new FakeClock();
    const f = fleet(clock, { a: [[20_000, "PROVISIONING"], [26_000, "STARTING"], [Infinity, "RUNNING"]] });
    await new Poller(f.list, clock, timings).wait("a", { until: running, timeoutMs: 60_000, description: "RUNNING" });
    const gaps = f.calls.slice(1).map((t, i) => t - f.calls[i]);
    // 1 s, then doubling while provisioning, capped at 8 s; 1 s again once STARTING.
    expect(f.calls[0]).toBe(1000);
    expect(gaps).toEqual([2000, 4000, 8000, 8000, 1000, 1000, 1000]);
  });

  test("a wait that runs out of time fails with the pod as last seen, and the loop stops", async () => {
    const clock = new FakeClock();
    const f = fleet(clock, { a: [[Infinity, "STARTING"]] });
    const poller = new Poller(f.list, clock, timings);
    const err = await poller
      .wait("a", { until: running, timeoutMs: 5000, description: "RUNNING" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as WaitTimeoutError).last).toEqual({ id: "a", status: "STARTING" });
    expect((err as Error).message).toMatch(/did not become RUNNING within 5 s \(it is STARTING\)/);
    expect(clock.now()).toBe(5000);
    const calls = f.calls.length;
    await new Promise((r) => setTimeout(r, 5));
    expect(f.calls.length).toBe(calls);
  });

  test("an aborted wait rejects with the signal's reason; the others go on", async () => {
    const clock = new FakeClock();
    const f = fleet(clock, { a: [[Infinity, "STARTING"]], b: [[3000, "STARTING"], [Infinity, "RUNNING"]] });
    const poller = new Poller(f.list, clock, timings);
    const ac = new AbortController();
    const a = poller.wait("a", { until: running, timeoutMs: 60_000, description: "RUNNING", signal: ac.signal });
    const b = poller.wait("b", { until: running, timeoutMs: 60_000, description: "RUNNING" });
    ac.abort(new Error("cancelled by the user"));
    await expect(a).rejects.toThrow("cancelled by the user");
    await expect(b).resolves.toEqual({ id: "b", status: "RUNNING" });
    expect(poller.waiting).toBe(0);
  });

  test("a condition that returns an Error fails the wait with it", async () => {
    const clock = new FakeClock();
    const f = fleet(clock, { a: [[2000, "STARTING"], [Infinity, "ERROR"]] });
    const poller = new Poller(f.list, clock, timings);
    const until = (p: P | undefined) => (p?.status === "ERROR" ? new Error("went into ERROR") : running(p));
    await expect(poller.wait("a", { until, timeoutMs: 60_000, description: "RUNNING" })).rejects.toThrow("went into ERROR");
  });

  test("transient list failures are waited out; a 401 fails every waiter at once", async () => {
    const clock = new FakeClock();
    let n = 0;
    const flaky = async (): Promise<P[]> => {
      n++;
      if (n <= 2) throw Object.assign(new Error("503"), { status: 503 });
      return [{ id: "a", status: "RUNNING" }];
    };
    await expect(
      new Poller(flaky, clock, timings).wait("a", { until: running, timeoutMs: 60_000, description: "RUNNING" }),
    ).resolves.toEqual({ id: "a", status: "RUNNING" });
    expect(n).toBe(3);

    const denied = async (): Promise<P[]> => {
      throw Object.assign(new Error("401 bad key"), { status: 401 });
    };
    const poller = new Poller(denied, new FakeClock(), timings);
    const both = [poller.wait("a", { until: running, timeoutMs: 60_000, description: "RUNNING" }), poller.wait("b", { until: running, timeoutMs: 60_000, description: "RUNNING" })];
    await expect(Promise.all(both)).rejects.toThrow("401 bad key");
    await expect(both[1]).rejects.toThrow("401 bad key");
  });

  test("a list sent before a waiter joined does not judge it (its pod may postdate the list)", async () => {
    const clock = new FakeClock();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let calls = 0;
    const list = async (): Promise<P[]> => {
      calls++;
      if (calls === 1) {
        await gate; // in flight while "b" is created and starts waiting
        return [{ id: "a", status: "RUNNING" }];
      }
      return [
        { id: "a", status: "RUNNING" },
        { id: "b", status: "RUNNING" },
      ];
    };
    const poller = new Poller(list, clock, timings);
    const gone = (p: P | undefined) => (p === undefined ? new Error("not listed") : running(p));
    const a = poller.wait("a", { until: gone, timeoutMs: 60_000, description: "RUNNING" });
    while (calls === 0) await new Promise((r) => setImmediate(r));
    const b = poller.wait("b", { until: gone, timeoutMs: 60_000, description: "RUNNING" });
    release();
    await expect(a).resolves.toEqual({ id: "a", status: "RUNNING" });
    await expect(b).resolves.toEqual({ id: "b", status: "RUNNING" });
    expect(calls).toBe(2);
  });

  test("a list that waits behind work (the quota) answers every waiter that joined before it left, in one call", async () => {
    const clock = new FakeClock();
    const sent: number[] = [];
    const asked: boolean[] = [];
    // The list waits 5 s for the rate limit (behind the DELETEs), then leaves and says so.
    const list = async (how?: StatusRead): Promise<P[]> => {
      asked.push(how?.yieldToWork === true);
      await clock.sleep(5000);
      how?.onSend();
      sent.push(clock.now());
      return [];
    };
    const poller = new Poller(list, clock, timings);
    const gone = (p: P | undefined) => (p === undefined ? "done" : "pending") as "done" | "pending";
    // Pods deleted one by one while the first tick's list waits: all joined before it left.
    const waits: Promise<unknown>[] = [];
    for (let i = 0; i < 10; i++) {
      waits.push(poller.wait(`p${i}`, { until: gone, timeoutMs: 60_000, description: "TERMINATED" }));
      await clock.sleep(400);
    }
    await Promise.all(waits);
    expect(sent).toEqual([6000]);
    expect(asked).toEqual([true]);
  });

  test("waiters that join one by one (a destroy's DELETEs answered as the quota lets them) share one list per tick", async () => {
    const clock = new FakeClock();
    const calls: number[] = [];
    // Every pod is gone at once: each wait ends at the first list that may judge it. Every other
    // list waits 900 ms for the quota before it goes (`calls` has when each went).
    let n = 0;
    const list = async (): Promise<P[]> => {
      if (n++ % 2 === 0) await clock.sleep(900);
      calls.push(clock.now());
      return [];
    };
    const poller = new Poller(list, clock, timings);
    const gone = (p: P | undefined) => (p === undefined ? "done" : "pending") as "done" | "pending";
    // 40 waiters, one every 150 ms: 6 s of joins, at an interval of 1000 ms.
    const waits: Promise<unknown>[] = [];
    for (let i = 0; i < 40; i++) {
      waits.push(poller.wait(`p${i}`, { until: gone, timeoutMs: 60_000, description: "TERMINATED" }));
      await clock.sleep(150);
    }
    await Promise.all(waits);
    // One list per interval at most, whatever the joins: never two closer than the interval.
    const gaps = calls.slice(1).map((t, i) => t - calls[i]);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(timings.intervalMs);
    expect(calls.length).toBeLessThanOrEqual(Math.ceil((40 * 150) / timings.intervalMs) + 1);
  });
});
