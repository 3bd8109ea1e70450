import { getEventListeners } from "node:events";
import { ConfigurationError } from "../../../../src/client";
import type { Clock } from "../../../../src/client/core/clock";
import { listed } from "../../../../src/client/core/records";
import { isFatal, pollFromEnv, Poller, type StatusRead, WaitTimeoutError } from "../../../../src/resources/lifecycle/poller";

/**
 * A clock whose time moves only when every pending promise has settled: it then jumps to the
 * earliest timer. A "wait ten minutes" runs in microseconds, and the order of events is exact.
 */
class FakeClock implements Clock {
  t = 0;
  /** Sleeps asked for, woken early or not. */
  slept = 0;
  private timers: { at: number; resolve: () => void }[] = [];
  private scheduled = false;
  now(): number {
    return this.t;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.slept++;
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

describe("the shared pod poller, its edges", () => {
  const wait = (until: (p: P | undefined) => "done" | "pending" | Error, timeoutMs = 60_000) => ({ until, timeoutMs, description: "RUNNING" });
  const gone = (p: P | undefined) => (p === undefined ? "done" : "pending") as "done" | "pending";

  test("a timeout says how long it waited since the wait began and what the list last said of the object", async () => {
    const clock = new FakeClock();
    clock.t = 7000;
    const still = new Poller(async () => [{ id: "a" } as P], clock, timings);
    const err = (await still.wait("a", wait(running, 3000)).catch((e: unknown) => e)) as WaitTimeoutError<P>;
    expect(err.name).toBe("WaitTimeoutError");
    expect(err.id).toBe("a");
    expect(err.waitedMs).toBe(3000);
    expect(err.message).toBe("pod a did not become RUNNING within 3 s (it is still listed)");
    // A list that answered leaves no cause.
    expect((err as { cause?: unknown }).cause).toBeUndefined();
    const never = new Poller(async () => [] as P[], clock, timings);
    const unlisted = (await never.wait("b", wait(running, 2000)).catch((e: unknown) => e)) as WaitTimeoutError<P>;
    expect(unlisted.message).toBe("pod b did not become RUNNING within 2 s (it was not listed)");
    expect(unlisted.last).toBeUndefined();
  });

  test("a timeout after lists that failed carries the last failure as its cause", async () => {
    const clock = new FakeClock();
    const failure = Object.assign(new Error("503"), { status: 503 });
    const poller = new Poller(async (): Promise<P[]> => Promise.reject(failure), clock, timings);
    const err = (await poller.wait("a", wait(running, 2500)).catch((e: unknown) => e)) as WaitTimeoutError<P>;
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as { cause?: unknown }).cause).toBe(failure);
  });

  test("a failed list judges no one: a wait for the object to be gone goes on until a list answers", async () => {
    const clock = new FakeClock();
    let n = 0;
    const list = async (): Promise<P[]> => {
      if (++n <= 2) throw Object.assign(new Error("503"), { status: 503 });
      return [];
    };
    await expect(new Poller(list, clock, timings).wait("a", wait(gone))).resolves.toBeUndefined();
    expect(n).toBe(3);
  });

  test("an object listed but unreadable is no news, never gone; a readable one beside it is judged", async () => {
    const clock = new FakeClock();
    let n = 0;
    const list = async (): Promise<P[]> => {
      n++;
      // First two lists: "a" is there but its record is unreadable (a status this release does not know).
      if (n <= 2) return listed<P>([{ id: "b", status: "RUNNING" }], [{ index: 0, id: "a", name: "x", issues: [] }]);
      return [];
    };
    const poller = new Poller(list, clock, timings);
    const a = poller.wait("a", wait(gone));
    const b = poller.wait("b", wait(running));
    await expect(b).resolves.toEqual({ id: "b", status: "RUNNING" });
    await expect(a).resolves.toBeUndefined();
    expect(n).toBe(3);
  });

  test("a condition that throws fails the wait with what it threw, an Error made of anything else", async () => {
    const clock = new FakeClock();
    const poller = new Poller(async () => [{ id: "a", status: "RUNNING" }], clock, timings);
    const boom = new Error("boom");
    await expect(
      poller.wait("a", wait(() => {
        throw boom;
      })),
    ).rejects.toBe(boom);
    const err = await poller
      .wait("a", wait(() => {
        throw "not an error";
      }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe("not an error");
  });

  test("a signal aborted before the wait rejects at once with its reason, and lists nothing", async () => {
    const clock = new FakeClock();
    let calls = 0;
    const poller = new Poller(async () => (calls++, []), clock, timings);
    const ac = new AbortController();
    ac.abort(new Error("already cancelled"));
    await expect(poller.wait("a", { ...wait(gone), signal: ac.signal })).rejects.toThrow("already cancelled");
    expect(poller.waiting).toBe(0);
    await new Promise((r) => setTimeout(r, 5));
    expect(calls).toBe(0);
  });

  test("a wait that ends leaves no listener on the caller's signal", async () => {
    const clock = new FakeClock();
    const poller = new Poller(async () => [{ id: "a", status: "RUNNING" }], clock, timings);
    const ac = new AbortController();
    const waiting = poller.wait("a", { ...wait(running), signal: ac.signal });
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(1);
    await waiting;
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
  });

  test("a waiter whose deadline comes before the loop's next tick wakes it: it times out at its own deadline", async () => {
    const clock = new FakeClock();
    const poller = new Poller(async () => [{ id: "a", status: "STARTING" }, { id: "b", status: "STARTING" }], clock, timings);
    const a = poller.wait("a", wait(running)).catch((e: unknown) => e);
    // The loop sleeps until "a"'s first look, at 1000; "b" must be looked at by 200.
    const b = await poller.wait("b", wait(running, 200)).catch((e: unknown) => e);
    expect((b as WaitTimeoutError).waitedMs).toBe(200);
    expect(clock.now()).toBe(200);
    poller.wait("a", wait(running, 0)).catch(() => undefined);
    expect(await a).toBeInstanceOf(WaitTimeoutError);
  });

  test("a waiter with nothing due before the loop's next tick does not wake it", async () => {
    const clock = new FakeClock();
    const poller = new Poller(async () => [{ id: "a", status: "RUNNING" }, { id: "b", status: "RUNNING" }], clock, timings);
    await Promise.all([poller.wait("a", wait(running)), poller.wait("b", wait(running))]);
    expect(clock.slept).toBe(1);
  });

  test("a waiter that joins while the loop's first list is out (it never slept) is looked at by the next list", async () => {
    const clock = new FakeClock();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let calls = 0;
    const list = async (): Promise<P[]> => {
      if (++calls === 1) await gate;
      return [{ id: "a", status: "RUNNING" }, { id: "b", status: "RUNNING" }];
    };
    const poller = new Poller(list, clock, timings);
    // A wait with no time at all: the loop lists at once, before any sleep.
    const a = poller.wait("a", wait(running, 0));
    while (calls === 0) await new Promise((r) => setImmediate(r));
    const b = poller.wait("b", wait(running));
    release();
    await expect(a).resolves.toEqual({ id: "a", status: "RUNNING" });
    await expect(b).resolves.toEqual({ id: "b", status: "RUNNING" });
    expect(calls).toBe(2);
  });
});

test.each([
  ["a configuration error", new ConfigurationError("no key"), true],
  ["a 400", { status: 400 }, true],
  ["a 401", { status: 401 }, true],
  ["a 499", { status: 499 }, true],
  ["a 399", { status: 399 }, false],
  ["a 408", { status: 408 }, false],
  ["a 429", { status: 429 }, false],
  ["a 500", { status: 500 }, false],
  ["a status that is not a number", { status: "401" }, false],
  ["an error without a status", new Error("socket hang up"), false],
  ["nothing", undefined, false],
  ["null", null, false],
])("isFatal: %s -> %p", (_, err, fatal) => {
  expect(isFatal(err)).toBe(fatal);
});

test.each([
  [undefined, {}],
  ["", {}],
  ["abc", {}],
  ["1.5", {}],
  ["0", {}],
  ["-5", {}],
  ["1", { intervalMs: 1, maxIntervalMs: 5 }],
  ["200", { intervalMs: 200, maxIntervalMs: 1000 }],
])("COMPUTEPLATFORM_POLL_INTERVAL_MS=%p paces the pollers at %p", (value, timings) => {
  expect(pollFromEnv({ COMPUTEPLATFORM_POLL_INTERVAL_MS: value })).toEqual(timings);
});
