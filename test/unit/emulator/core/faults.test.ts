// The emulator's injected faults (faults.ts) without a server: the seeded sequence that picks
// which requests fail (the same seed, the same requests, run after run), the checks of what a
// test or the control plane sets, the aimed faults and their hits, and the patterns of images
// and prompts, matched in linear time. What a fault does to an HTTP exchange (a 5xx's body, a
// dropped socket, a storm's headers) is test/integration/emulator/core/faults.test.ts.
import { checkRate, FaultState, linearPattern, PatternError, seededRandom } from "../../../../src/emulator/core/faults";

/** The first draws of mulberry32 for seeds 1 and 7: a run's faults are these, on every machine. */
const SEED_1 = [0.6270739405881613, 0.002735721180215478, 0.5274470399599522];
const SEED_7 = [0.011704753153026104, 0.06195825757458806, 0.97690763277933, 0.6990287057124078, 0.5214452685322613, 0.4055216880515218, 0.4662326325196773, 0.23992518591694534, 0.5533256039489061, 0.729822089895606];

const draws = (random: () => number, n: number) => Array.from({ length: n }, () => random());

describe("seededRandom", () => {
  test("a seed gives the same sequence every time, another seed another one", () => {
    expect(draws(seededRandom(1), 3)).toEqual(SEED_1);
    expect(draws(seededRandom(7), 10)).toEqual(SEED_7);
    expect(draws(seededRandom(42), 3)).toEqual([0.6011037519201636, 0.44829055899754167, 0.8524657934904099]);
  });

  test("the seed is taken as an unsigned 32-bit integer", () => {
    expect(draws(seededRandom(2 ** 32 + 1), 3)).toEqual(SEED_1);
    expect(draws(seededRandom(-1), 2)).toEqual([0.8964226141106337, 0.189478256739676]);
  });

  test("every draw is in [0, 1)", () => {
    const r = seededRandom(3);
    for (const x of draws(r, 1000)) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
    }
  });
});

describe("linearPattern", () => {
  test("a string or a RegExp, kept as its source text", () => {
    expect(linearPattern("^bad/").source).toBe("^bad/");
    expect(linearPattern(/^bad\//).source).toBe("^bad\\/");
    expect(linearPattern("bad").test("img/bad:1")).toBe(true);
    expect(linearPattern("^bad").test("img/bad:1")).toBe(false);
  });

  test("a RegExp's flags i, m and s are kept; a string has none", () => {
    expect(linearPattern(/ABC/i).test("xabcx")).toBe(true);
    expect(linearPattern(/ABC/).test("xabcx")).toBe(false);
    expect(linearPattern("ABC").test("xabcx")).toBe(false);
    expect(linearPattern(/^b$/m).test("a\nb")).toBe(true);
    expect(linearPattern(/^b$/).test("a\nb")).toBe(false);
    expect(linearPattern(/a.b/s).test("a\nb")).toBe(true);
    expect(linearPattern(/a.b/).test("a\nb")).toBe(false);
    expect(linearPattern("a.b").test("a\nb")).toBe(false);
  });

  test("a pattern a backtracking engine takes exponential time on is matched at once", () => {
    const evil = linearPattern("^(a+)+$");
    expect(evil.test(`${"a".repeat(5000)}!`)).toBe(false);
    expect(evil.test("aaa")).toBe(true);
  });

  test.each([
    ["(a)\\1", "invalid escape sequence: `\\1`"],
    ["a(?=b)", "invalid or unsupported Perl syntax: `(?=`"],
    ["[", "missing closing ]: `[`"],
  ])("%s is refused, in the engine's words and with the rule", (pattern, why) => {
    let err: unknown;
    try {
      linearPattern(pattern);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PatternError);
    expect((err as Error).message).toBe(
      `is not a pattern the emulator takes (${why}); patterns are matched in linear time (RE2): no backreferences or lookaround`,
    );
  });
});

describe("checkRate", () => {
  test.each([undefined, 0, 0.5, 1])("%p is a share", (value) => {
    expect(() => checkRate("rate5xx", value)).not.toThrow();
  });

  test.each([-0.01, 1.01, Number.NaN])("%p is refused, naming the field", (value) => {
    expect(() => checkRate("rate5xx", value)).toThrow(new RangeError(`faults.rate5xx must be between 0 and 1, got ${value}`));
  });
});

describe("FaultState: what is set", () => {
  test("nothing set: every fault off, seed 1", () => {
    const f = new FaultState({});
    expect(f.current()).toEqual({
      seed: 1,
      rate429: 0,
      rate5xx: 0,
      dropAfterProcessRate: 0,
      slowMs: 0,
      errorImages: [],
      noCapacity: [],
      modelJobMs: 0,
      failingPrompts: [],
    });
    expect(f.slowMs).toBe(0);
    expect(f.aimedLeft).toBe(0);
    expect(f.roll()).toEqual({ storm: false, fail5xx: false, drop: false });
    expect(f.aim("GET", "/v2/pods", "")).toBeUndefined();
    expect(f.failsToStart("any")).toBe(false);
    expect(f.modelJob("any")).toEqual({ durationMs: 0, fails: false });
    expect(f.hasCapacity("NVIDIA A40", "EU-RO-1")).toBe(true);
  });

  test("what is set is answered back, patterns as their source text", () => {
    const f = new FaultState({
      seed: 9,
      rate429: 0.1,
      rate5xx: 0.2,
      dropAfterProcessRate: 0.3,
      slowMs: 40,
      errorImages: ["^bad/", /crash/i],
      noCapacity: [{ gpuId: "NVIDIA A40" }, { gpuId: "NVIDIA L4", dataCenterId: "EU-RO-1" }],
      modelJobMs: 5000,
      failingPrompts: [/boom/],
    });
    expect(f.current()).toEqual({
      seed: 9,
      rate429: 0.1,
      rate5xx: 0.2,
      dropAfterProcessRate: 0.3,
      slowMs: 40,
      errorImages: ["^bad/", "crash"],
      noCapacity: [{ gpuId: "NVIDIA A40" }, { gpuId: "NVIDIA L4", dataCenterId: "EU-RO-1" }],
      modelJobMs: 5000,
      failingPrompts: ["boom"],
    });
    expect(f.slowMs).toBe(40);
  });

  test("a new set replaces the faults in force: what it leaves out is off", () => {
    const f = new FaultState({ rate5xx: 1, slowMs: 40, errorImages: ["bad"], aimed: [{ fault: "drop" }] });
    f.set({ rate429: 1 });
    expect(f.current()).toMatchObject({ rate429: 1, rate5xx: 0, slowMs: 0, errorImages: [] });
    expect(f.aimedLeft).toBe(0);
    expect(f.failsToStart("bad")).toBe(false);
  });

  test("the lists given and answered are copies: changing them afterwards changes nothing", () => {
    const noCapacity = [{ gpuId: "NVIDIA A40" }];
    const f = new FaultState({ noCapacity });
    noCapacity.push({ gpuId: "NVIDIA L4" });
    expect(f.hasCapacity("NVIDIA L4", "EU-RO-1")).toBe(true);
    const answered = f.current();
    answered.noCapacity.push({ gpuId: "NVIDIA L4" });
    (answered.noCapacity[0] as { gpuId: string }).gpuId = "NVIDIA L4";
    expect(f.current().noCapacity).toEqual([{ gpuId: "NVIDIA A40" }]);
  });

  test.each([
    [{ rate429: 1.5 }, "faults.rate429 must be between 0 and 1, got 1.5"],
    [{ rate5xx: -1 }, "faults.rate5xx must be between 0 and 1, got -1"],
    [{ dropAfterProcessRate: 2 }, "faults.dropAfterProcessRate must be between 0 and 1, got 2"],
    [{ slowMs: -1 }, "faults.slowMs must be >= 0, got -1"],
    [{ slowMs: Number.NaN }, "faults.slowMs must be >= 0, got NaN"],
    [{ modelJobMs: -5 }, "faults.modelJobMs must be >= 0, got -5"],
    [{ modelJobMs: Number.NaN }, "faults.modelJobMs must be >= 0, got NaN"],
  ])("%j is refused, naming the field, and the faults in force stay", (faults, message) => {
    const f = new FaultState({ rate5xx: 0.5 });
    expect(() => f.set(faults)).toThrow(new RangeError(message));
    expect(f.current().rate5xx).toBe(0.5);
  });

  test("zero is a duration", () => {
    expect(() => new FaultState({ slowMs: 0, modelJobMs: 0 })).not.toThrow();
  });

  test("a pattern the emulator cannot take is refused by its place in the list, before anything changes", () => {
    const f = new FaultState({ errorImages: ["old"] });
    expect(() => f.set({ errorImages: ["ok", /(a)\1/] })).toThrow(
      new RangeError(
        "faults.errorImages[1] /(a)\\1/ is not a pattern the emulator takes (invalid escape sequence: `\\1`); patterns are matched in linear time (RE2): no backreferences or lookaround",
      ),
    );
    expect(() => f.set({ failingPrompts: ["a(?=b)"] })).toThrow(/^faults\.failingPrompts\[0\] a\(\?=b\) is not a pattern/);
    expect(f.current().errorImages).toEqual(["old"]);
    expect(f.failsToStart("old:1")).toBe(true);
  });
});

describe("FaultState: the seeded rolls", () => {
  test("without a seed, the sequence is seed 1's", () => {
    // A request is hit when its draw is below the rate: 0.627 is not below 0.5, 0.0027 is.
    const f = new FaultState({ rate5xx: 0.5 });
    expect([f.roll(), f.roll(), f.roll()].map((r) => r.fail5xx)).toEqual([false, true, false]);
  });

  test("each request draws for each fault set, in the order 429, 5xx, drop", () => {
    const f = new FaultState({ seed: 7, rate429: 0.5, rate5xx: 0.5, dropAfterProcessRate: 0.5 });
    expect(f.roll()).toEqual({ storm: true, fail5xx: true, drop: false });
    expect(f.roll()).toEqual({ storm: false, fail5xx: false, drop: true });
  });

  test("a fault not set draws nothing: the others take the sequence", () => {
    const f = new FaultState({ seed: 7, dropAfterProcessRate: 0.05 });
    expect([f.roll(), f.roll(), f.roll()].map((r) => r.drop)).toEqual([true, false, false]);
  });

  test("a draw equal to the rate does not hit: the share hit is the rate", () => {
    const f = new FaultState({ rate429: SEED_1[0] });
    expect(f.roll().storm).toBe(false);
    expect(f.roll().storm).toBe(true);
  });

  test("a rate of 1 hits every request, 0 none", () => {
    const f = new FaultState({ seed: 5, rate429: 1, rate5xx: 0 });
    for (let i = 0; i < 50; i++) expect(f.roll()).toEqual({ storm: true, fail5xx: false, drop: false });
  });

  test("an injected failure's status is 500, 502 or 503 by the next draw, a third of [0, 1) each", () => {
    const f = new FaultState({ seed: 7 });
    expect(draws(() => f.serverErrorStatus(), 10)).toEqual([500, 500, 503, 503, 502, 502, 502, 500, 502, 503]);
  });

  test("a new seed restarts the sequence; a set without one goes on with it", () => {
    const f = new FaultState({ seed: 7, rate5xx: 0.05 });
    expect(f.roll().fail5xx).toBe(true);
    f.set({ rate5xx: 0.05 });
    expect(f.roll().fail5xx).toBe(false); // 0.062: the second draw of seed 7
    expect(f.current().seed).toBe(7);
    f.set({ seed: 7, rate5xx: 0.05 });
    expect(f.roll().fail5xx).toBe(true);
    f.set({ seed: 1, rate5xx: 0.05 });
    expect(f.current().seed).toBe(1);
    expect([f.roll(), f.roll()].map((r) => r.fail5xx)).toEqual([false, true]);
  });
});

describe("FaultState: aimed faults", () => {
  test("an aimed fault hits the requests its method, path and body match, once by default", () => {
    const f = new FaultState({ aimed: [{ method: "PATCH", path: "/v2/pods/p1", bodyIncludes: "imageName", fault: "5xx" }] });
    expect(f.aimedLeft).toBe(1);
    expect(f.aim("GET", "/v2/pods/p1", '{"imageName":"x"}')).toBeUndefined();
    expect(f.aim("PATCH", "/v2/pods/p2", '{"imageName":"x"}')).toBeUndefined();
    expect(f.aim("PATCH", "/v2/pods/p1", '{"name":"x"}')).toBeUndefined();
    expect(f.aim("PATCH", "/v2/pods/p1/x", '{"imageName":"x"}')).toBeUndefined();
    expect(f.aimedLeft).toBe(1);
    expect(f.aim("PATCH", "/v2/pods/p1", '{"imageName":"x"}')).toBe("5xx");
    expect(f.aimedLeft).toBe(0);
    expect(f.aim("PATCH", "/v2/pods/p1", '{"imageName":"x"}')).toBeUndefined();
  });

  test("what an aimed fault leaves out matches anything; a path may be a pattern; `times` hits", () => {
    const f = new FaultState({ aimed: [{ path: /^\/v2\/pods\/[^/]+$/, fault: "drop", times: 2 }, { fault: "5xx" }] });
    expect(f.aimedLeft).toBe(3);
    expect(f.aim("DELETE", "/v2/pods/a", "")).toBe("drop");
    expect(f.aim("GET", "/v2/endpoints", "")).toBe("5xx");
    expect(f.aim("GET", "/v2/endpoints", "")).toBeUndefined();
    expect(f.aim("POST", "/v2/pods/b", "{}")).toBe("drop");
    expect(f.aimedLeft).toBe(0);
    expect(f.aim("POST", "/v2/pods/c", "{}")).toBeUndefined();
  });

  test("the first aimed fault not spent that matches is the one hit", () => {
    const f = new FaultState({ aimed: [{ method: "POST", fault: "drop" }, { method: "POST", fault: "5xx", times: 2 }] });
    expect([f.aim("POST", "/graphql", ""), f.aim("POST", "/graphql", ""), f.aim("POST", "/graphql", "")]).toEqual(["drop", "5xx", "5xx"]);
  });

  test("aimed faults draw nothing from the seeded sequence", () => {
    const f = new FaultState({ seed: 7, rate5xx: 0.05, aimed: [{ fault: "5xx", times: 3 }] });
    f.aim("GET", "/", "");
    f.aim("GET", "/", "");
    expect(f.roll().fail5xx).toBe(true);
  });
});

describe("FaultState: images, prompts and capacity", () => {
  test("a pod whose image matches an error pattern fails to start", () => {
    const f = new FaultState({ errorImages: ["^registry\\.local/bad", /CRASH/i] });
    expect(f.failsToStart("registry.local/bad:1")).toBe(true);
    expect(f.failsToStart("docker.io/registry.local/bad")).toBe(false);
    expect(f.failsToStart("team/crash-loop")).toBe(true);
    expect(f.failsToStart("team/ok")).toBe(false);
  });

  test("a hosted-model job takes modelJobMs and fails when its prompt matches", () => {
    const f = new FaultState({ modelJobMs: 2500, failingPrompts: ["explode", /^fail$/] });
    expect(f.modelJob("please explode now")).toEqual({ durationMs: 2500, fails: true });
    expect(f.modelJob("fail")).toEqual({ durationMs: 2500, fails: true });
    expect(f.modelJob("do not fail")).toEqual({ durationMs: 2500, fails: false });
  });

  test("no capacity for a GPU type in one data center, or in all when none is named", () => {
    const f = new FaultState({ noCapacity: [{ gpuId: "NVIDIA A40" }, { gpuId: "NVIDIA L4", dataCenterId: "EU-RO-1" }] });
    expect(f.hasCapacity("NVIDIA A40", "EU-RO-1")).toBe(false);
    expect(f.hasCapacity("NVIDIA A40", "US-TX-3")).toBe(false);
    expect(f.hasCapacity("NVIDIA L4", "EU-RO-1")).toBe(false);
    expect(f.hasCapacity("NVIDIA L4", "US-TX-3")).toBe(true);
    expect(f.hasCapacity("NVIDIA RTX 4090", "EU-RO-1")).toBe(true);
  });
});
