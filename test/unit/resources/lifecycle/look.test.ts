// A look-up tried again after an answer that proves nothing (look.ts): up to its number of
// attempts, pausing on the injected clock between them, while an error no retry fixes (a bad
// key, a missing permission, a bad request) ends it at once. (engine/retry-base.test.ts holds
// the pauses' lengths.)
import { ConfigurationError } from "../../../../src/client";
import { LOOKUPS, lookAgain, lookPauseMs } from "../../../../src/resources/lifecycle/look";
import { FakeClock } from "../../../helpers/fake-clock";

/** A look that fails with each of `failures` in turn, then answers. */
function looks(...failures: unknown[]) {
  let n = 0;
  const look = async () => {
    const f = failures[n++];
    if (f !== undefined) throw f;
    return "found";
  };
  return { look, count: () => n };
}
const withStatus = (status: number) => Object.assign(new Error(`status ${status}`), { status });

describe("lookAgain", () => {
  it("an answer at once: no pause", async () => {
    const clock = new FakeClock();
    await expect(lookAgain(looks().look, { clock, attempts: LOOKUPS })).resolves.toBe("found");
    expect(clock.sleeps).toEqual([]);
  });

  it("failures that prove nothing are looked at again, after each look's pause", async () => {
    const clock = new FakeClock();
    const l = looks(new Error("socket hang up"), withStatus(503));
    await expect(lookAgain(l.look, { clock, attempts: 3 })).resolves.toBe("found");
    expect(l.count()).toBe(3);
    expect(clock.sleeps).toEqual([lookPauseMs(1), lookPauseMs(2)]);
  });

  it("bounded: the last failure after `attempts` looks", async () => {
    const clock = new FakeClock();
    const last = withStatus(500);
    const l = looks(withStatus(502), withStatus(429), last);
    await expect(lookAgain(l.look, { clock, attempts: 3 })).rejects.toBe(last);
    expect(l.count()).toBe(3);
    expect(clock.sleeps).toHaveLength(2);
  });

  it.each([
    ["a configuration error", new ConfigurationError("no key")],
    ["a 401", withStatus(401)],
    ["a 403", withStatus(403)],
    ["a 404", withStatus(404)],
  ])("%s ends it at once", async (_, err) => {
    const clock = new FakeClock();
    const l = looks(err);
    await expect(lookAgain(l.look, { clock, attempts: 3 })).rejects.toBe(err);
    expect(l.count()).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });

  it("408 and 429 are worth another look", async () => {
    const clock = new FakeClock();
    const l = looks(withStatus(408), withStatus(429));
    await expect(lookAgain(l.look, { clock, attempts: 3 })).resolves.toBe("found");
  });

  it("a cancel during the pause ends it with the cancel's reason", async () => {
    const clock = new FakeClock();
    const ac = new AbortController();
    const reason = new Error("cancelled");
    const look = async () => {
      ac.abort(reason);
      throw new Error("list failed");
    };
    await expect(lookAgain(look, { clock, signal: ac.signal, attempts: 3 })).rejects.toBe(reason);
  });
});

describe("lookPauseMs", () => {
  const saved = process.env.COMPUTEPLATFORM_RETRY_BASE_MS;
  afterEach(() => {
    if (saved === undefined) delete process.env.COMPUTEPLATFORM_RETRY_BASE_MS;
    else process.env.COMPUTEPLATFORM_RETRY_BASE_MS = saved;
  });

  it("0.5, 1, 2 s, doubling up to 5 s, with no jitter", () => {
    delete process.env.COMPUTEPLATFORM_RETRY_BASE_MS;
    expect([1, 2, 3, 4, 5, 6].map(lookPauseMs)).toEqual([500, 1000, 2000, 4000, 5000, 5000]);
  });

  it("COMPUTEPLATFORM_RETRY_BASE_MS paces them as it paces the client's retries", () => {
    process.env.COMPUTEPLATFORM_RETRY_BASE_MS = "40";
    expect([1, 2, 3].map(lookPauseMs)).toEqual([40, 80, 160]);
  });
});

it("one attempt: the first failure is passed on, with no pause", async () => {
  const clock = new FakeClock();
  const first = new Error("list failed");
  const l = looks(first);
  await expect(lookAgain(l.look, { clock, attempts: 1 })).rejects.toBe(first);
  expect(clock.sleeps).toEqual([]);
});
