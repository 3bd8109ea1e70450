import { RE2JS } from "re2js";

/** Faults the emulator injects; all off by default. */
export interface Faults {
  /** Seed of the fault RNG, so a run is reproducible. @default 1 */
  seed?: number;
  /** Share (0..1) of authenticated requests answered 429 regardless of quota. @default 0 */
  rate429?: number;
  /** Share (0..1) of authenticated requests answered 500, 502 or 503 without processing. @default 0 */
  rate5xx?: number;
  /**
   * Share (0..1) of authenticated requests that are fully processed, after which the socket is
   * destroyed without a response: the client cannot tell whether a create happened. @default 0
   */
  dropAfterProcessRate?: number;
  /** Real milliseconds added before every response. @default 0 */
  slowMs?: number;
  /** Pods whose image matches one of these end in ERROR instead of RUNNING; endpoint workers are UNHEALTHY. @default [] */
  errorImages?: (RegExp | string)[];
  /** No capacity for a GPU type (in one data center, or everywhere when omitted). @default [] */
  noCapacity?: { gpuId: string; dataCenterId?: string }[];
  /**
   * Emulated ms every hosted-model job takes: a runsync whose `wait` is shorter answers
   * IN_PROGRESS. @default 0
   */
  modelJobMs?: number;
  /** Hosted-model jobs whose prompt matches one of these answer FAILED with an error. @default [] */
  failingPrompts?: (RegExp | string)[];
  /**
   * Faults aimed at chosen requests (a test's "the next PATCH of this pod fails"): each entry
   * hits the requests whose method, path and body text match, `times` times (then it is spent),
   * before the rolled faults. `5xx`: answered 500 without processing; `drop`: processed, then
   * the socket is destroyed without a response. @default []
   */
  aimed?: AimedFault[];
}

/** One aimed fault; see {@link Faults.aimed}. */
export interface AimedFault {
  method?: string;
  /** The path, or a pattern of it (`/v2/pods/abc`, `/graphql`). */
  path?: RegExp | string;
  /** Text the request body must contain (a GraphQL mutation's name). */
  bodyIncludes?: string;
  fault: "5xx" | "drop";
  /** How many matching requests it hits. @default 1 */
  times?: number;
}

/** {@link Faults} as JSON carries them: every field present, patterns as source text. */
export interface FaultsJson {
  seed: number;
  rate429: number;
  rate5xx: number;
  dropAfterProcessRate: number;
  slowMs: number;
  errorImages: string[];
  noCapacity: { gpuId: string; dataCenterId?: string }[];
  modelJobMs: number;
  failingPrompts: string[];
}

/** mulberry32: tiny, seedable, good enough to pick which requests fail. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A pattern of `errorImages` or `failingPrompts`, matched by RE2 (re2js, pure JavaScript) in time
 * linear in the text: these patterns come from outside (the control plane, the console's form, the
 * command line), and a backtracking engine takes `^(a+)+$` against 25 `a`s and a `!` for seconds,
 * doubling with each character, while every client waits. RE2 takes the same syntax as JavaScript
 * but for backreferences and lookaround, which are what can backtrack: those are refused by name.
 */
export interface Pattern {
  /** The text it was given (what `GET /emulator/faults` answers). */
  readonly source: string;
  /** Whether the pattern occurs in `text` (as `RegExp.prototype.test`). */
  test(text: string): boolean;
}

/** A pattern the linear-time engine cannot take: the reason, in the engine's words. */
export class PatternError extends Error {}

export function linearPattern(pattern: RegExp | string): Pattern {
  const source = typeof pattern === "string" ? pattern : pattern.source;
  const flags = typeof pattern === "string" ? "" : pattern.flags;
  let re: RE2JS;
  try {
    const bits = (flags.includes("i") ? RE2JS.CASE_INSENSITIVE : 0) | (flags.includes("m") ? RE2JS.MULTILINE : 0) | (flags.includes("s") ? RE2JS.DOTALL : 0);
    re = RE2JS.compile(RE2JS.translateRegExp(source), bits);
  } catch (e) {
    const why = e instanceof Error ? e.message.replace(/^error parsing regexp: /, "") : String(e);
    throw new PatternError(`is not a pattern the emulator takes (${why}); patterns are matched in linear time (RE2): no backreferences or lookaround`);
  }
  return { source, test: (text) => re.test(text) };
}

export function checkRate(name: string, value: number | undefined): void {
  if (value !== undefined && !(value >= 0 && value <= 1)) {
    throw new RangeError(`faults.${name} must be between 0 and 1, got ${value}`);
  }
}

/** The faults in force and the seeded sequence that decides which requests they hit. */
export class FaultState {
  private faults: Faults = {};
  /** The seed last given (the sequence it started may have moved on since). */
  private seed = 1;
  private errorImages: Pattern[] = [];
  private failingPrompts: Pattern[] = [];
  private random: () => number = seededRandom(1);
  private aimed: (AimedFault & { left: number })[] = [];

  constructor(initial: Faults) {
    this.set(initial);
  }

  set(faults: Faults): void {
    for (const name of ["rate429", "rate5xx", "dropAfterProcessRate"] as const) checkRate(name, faults[name]);
    if (faults.slowMs !== undefined && !(faults.slowMs >= 0)) {
      throw new RangeError(`faults.slowMs must be >= 0, got ${faults.slowMs}`);
    }
    if (faults.modelJobMs !== undefined && !(faults.modelJobMs >= 0)) {
      throw new RangeError(`faults.modelJobMs must be >= 0, got ${faults.modelJobMs}`);
    }
    const patterns = (name: "errorImages" | "failingPrompts") =>
      (faults[name] ?? []).map((p, i) => {
        try {
          return linearPattern(p);
        } catch (e) {
          if (e instanceof PatternError) throw new RangeError(`faults.${name}[${i}] ${String(p)} ${e.message}`);
          throw e;
        }
      });
    const errorImages = patterns("errorImages");
    const failingPrompts = patterns("failingPrompts");
    this.faults = { ...faults, noCapacity: [...(faults.noCapacity ?? [])] };
    this.errorImages = errorImages;
    this.failingPrompts = failingPrompts;
    this.aimed = (faults.aimed ?? []).map((f) => ({ ...f, left: f.times ?? 1 }));
    // A new seed restarts the sequence; without one the current sequence continues.
    if (faults.seed !== undefined) {
      this.seed = faults.seed;
      this.random = seededRandom(faults.seed);
    }
  }

  /** The faults in force, patterns as their source text (what `GET /emulator/faults` answers). */
  current(): FaultsJson {
    const f = this.faults;
    return {
      seed: this.seed,
      rate429: f.rate429 ?? 0,
      rate5xx: f.rate5xx ?? 0,
      dropAfterProcessRate: f.dropAfterProcessRate ?? 0,
      slowMs: f.slowMs ?? 0,
      errorImages: this.errorImages.map((re) => re.source),
      noCapacity: (f.noCapacity ?? []).map((n) => ({ ...n })),
      modelJobMs: f.modelJobMs ?? 0,
      failingPrompts: this.failingPrompts.map((re) => re.source),
    };
  }

  /**
   * The rolls of one authenticated request, always all three in this order, so a seed gives
   * the same sequence whatever the requests answer.
   */
  roll(): { storm: boolean; fail5xx: boolean; drop: boolean } {
    const roll = (rate: number | undefined) => (rate ? this.random() < rate : false);
    const storm = roll(this.faults.rate429);
    const fail5xx = roll(this.faults.rate5xx);
    const drop = roll(this.faults.dropAfterProcessRate);
    return { storm, fail5xx, drop };
  }

  /** The aimed fault this request meets (spending one of its hits), if any. */
  aim(method: string, path: string, body: string): "5xx" | "drop" | undefined {
    const hit = this.aimed.find(
      (f) =>
        f.left > 0 &&
        (f.method === undefined || f.method === method) &&
        (f.path === undefined || (typeof f.path === "string" ? f.path === path : f.path.test(path))) &&
        (f.bodyIncludes === undefined || body.includes(f.bodyIncludes)),
    );
    if (!hit) return undefined;
    hit.left--;
    return hit.fault;
  }

  /** Aimed faults not spent yet. */
  get aimedLeft(): number {
    return this.aimed.reduce((n, f) => n + f.left, 0);
  }

  /** Which of 500, 502, 503 an injected failure answers. */
  serverErrorStatus(): number {
    return [500, 502, 503][Math.floor(this.random() * 3)];
  }

  get slowMs(): number {
    return this.faults.slowMs ?? 0;
  }

  failsToStart(image: string): boolean {
    return this.errorImages.some((re) => re.test(image));
  }

  /** How a hosted-model job on `prompt` goes. */
  modelJob(prompt: string): { durationMs: number; fails: boolean } {
    return { durationMs: this.faults.modelJobMs ?? 0, fails: this.failingPrompts.some((re) => re.test(prompt)) };
  }

  hasCapacity(gpuId: string, dataCenterId: string): boolean {
    return !(this.faults.noCapacity ?? []).some(
      (f) => f.gpuId === gpuId && (f.dataCenterId === undefined || f.dataCenterId === dataCenterId),
    );
  }
}
