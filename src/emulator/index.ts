/**
 * A local Compute Platform: REST `/v2`, GraphQL `/graphql` and hosted models on loopback, for
 * trying a stack without an account and for tests. Start one with {@link startEmulator}, or run
 * `npx computeplatform-emulator`.
 *
 * @module pulumi-computeplatform/emulator
 */
// A local Compute Platform: REST /v2 (pods, catalog, network volumes), GraphQL /graphql
// (serverless endpoints) and hosted models, for trying a stack without an account and for
// every integration test. It reads the platform's API independently of src/client and src/resources.

import { randomBytes } from "node:crypto";
import type { AimedFault, Faults } from "./core/faults";
import type { Exchange } from "./core/http/exchanges";
import type { NetworkVolume } from "./network-volumes/store";
import type { Registry } from "./registries/store";
import type { Template } from "./templates/store";
import type { PodAction, PodStatus, PodView } from "./pods/store";
import type { RequestLogEntry } from "./core/request-log";
import type { ApiKey, Scope } from "./core/http/types";
import { DEFAULT_QUOTAS, type Quotas } from "./core/rate-limit";
import { EmulatorServer, type EmulatorState, type Timings } from "./server";
import type { HandlerJob, JobHandler, JobLimits } from "./serverless/jobs/job";

export type {
  ApiKey,
  EmulatorState,
  Exchange,
  HandlerJob,
  JobHandler,
  JobLimits,
  AimedFault,
  Faults,
  NetworkVolume,
  PodAction,
  PodStatus,
  PodView,
  Quotas,
  Registry,
  RequestLogEntry,
  Scope,
  Template,
  Timings,
};

export interface EmulatorOptions {
  /** TCP port; 0 picks a free one (what tests want). @default 8787 */
  port?: number;
  /** Interface to bind. @default "127.0.0.1" */
  host?: string;
  /**
   * Host names served besides the loopback names and the bound address (a name in /etc/hosts, a
   * container's `host.docker.internal`); a request with any other `Host` is answered 421.
   * @default []
   */
  allowedHosts?: string[];
  /**
   * Accepted API keys with their scopes, grouped by account (a key's `account`): each account
   * holds, lists, bills and rate-limits only its own objects, and another account's id is a 404.
   * @default one generated key with read and write, in one account
   */
  keys?: ApiKey[];
  /** Requests per key in each rate-limit window. @default { minute: 60, hour: 3000, day: 50000 } */
  quotas?: Partial<Quotas>;
  /** Durations of pod and worker states, in emulated ms. @default { provisioningMs: 2000, startingMs: 3000, drainMs: 3000, restartDelayMs: 1000 } */
  timings?: Partial<Timings>;
  /**
   * How much faster than real time the emulator runs: every timer and every rate-limit window
   * shrinks by this factor (10: an emulated minute lasts six seconds). @default 1
   */
  timeScale?: number;
  /** Injected faults; see {@link Faults}. @default {} (none) */
  faults?: Faults;
  /** JSON file that keeps pods, volumes and endpoints across restarts. @default undefined (memory only) */
  stateFile?: string;
  /**
   * The order of the lists of pods, volumes, templates, credentials and endpoints (REST and
   * GraphQL's `myself`): `created`, or `shuffled` (a new order each answer, seeded by
   * `faults.seed`). The contract promises no order; a client's tests run with `shuffled` to
   * prove they rest on none. @default "created"
   */
  listOrder?: "created" | "shuffled";
  /** Entries the request log keeps of requests with a key (and apart, of those without) before it drops the oldest. @default 1000 */
  requestLogSize?: number;
  /**
   * Requests kept with their bodies and answers for `exchanges()` (a test checks them against
   * the public contract); never the key, never registry credentials. @default 0 (none kept)
   */
  recordExchanges?: number;
  /**
   * How a GraphQL `saveEndpoint` of an existing endpoint treats the optional fields it leaves
   * out: false keeps them (as the platform documents), true puts them back to their defaults (as
   * a client of the live platform reports it doing), so a client can be tested both ways. REST
   * PATCH `/v2/serverless/{id}` stays sparse either way.
   * @default false
   */
  graphqlSaveResets?: boolean;
  /**
   * The emulator's time source (epoch ms) for pod and worker states and rate-limit windows;
   * a test passes a manual clock to step through transitions without sleeping. @default Date
   */
  clock?: { now(): number };
  /**
   * The worker of every account endpoint's jobs, in place of the test worker (which echoes its
   * input, sleeps `sleep_ms`, fails with `fail` and streams `stream`): it receives
   * `{ id, endpointId, input }` and returns the job's output (or a promise of it), or throws to
   * end the job FAILED with the error's message. The endpoint's execution timeout still applies.
   * @default undefined (the test worker)
   */
  handler?: JobHandler;
  /**
   * The emulator's limits on jobs: jobs not ended per endpoint (`queuedJobs`) and their input
   * bytes (`queuedBytes`), past which a submission is answered 429 with `Retry-After`, and calls
   * held open on a job per account (`heldCalls`), past which a held call is answered 503.
   * @default { queuedJobs: 5000, queuedBytes: 67108864, heldCalls: 2000 }
   */
  jobLimits?: Partial<JobLimits>;
}

export interface Emulator {
  /** Base URL: REST at /v2, GraphQL at /graphql, runsync at /v2/{id}/runsync. */
  readonly url: string;
  /** The first key with both scopes (or the first key if none has both). */
  readonly apiKey: string;
  /**
   * The last `requestLogSize` requests with a key and, kept apart, the last `requestLogSize`
   * without one, oldest first; keys appear as fingerprints only.
   */
  requestLog(): RequestLogEntry[];
  /** The last `recordExchanges` requests with bodies and answers, oldest first ([] when off). */
  exchanges(): Exchange[];
  /** Requests per operation name since start, e.g. { createPod: 1, getPod: 3, saveEndpoint: 1 }. */
  counts(): Record<string, number>;
  /** A copy of everything one account holds now: `account`, else the first key's. */
  state(account?: string): EmulatorState;
  /** A copy of everything every account holds now, by account name, the first key's first. */
  states(): Record<string, EmulatorState>;
  /** Replaces the active faults; a `seed` restarts the fault sequence. */
  setFaults(faults: Faults): void;
  /** Stops serving, cuts keep-alive connections, and writes the state file a last time. */
  close(): Promise<void>;
  /**
   * Moves the emulator's clock forward by `ms` (as if that much time passed: every timer, which
   * runs `timeScale` times faster, sees `ms × timeScale` emulated ms; billing sees `ms`): idle
   * workers leave, jobs time out, worker time is billed. Also `POST /emulator/clock { advanceMs }`.
   */
  advanceClock(ms: number): void;
  /** The emulator's clock now (epoch ms), moves included. */
  now(): number;
}

export const DEFAULT_TIMINGS: Timings = { provisioningMs: 2000, startingMs: 3000, drainMs: 3000, restartDelayMs: 1000 };
export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = "127.0.0.1";

/** What an account may be called (it prefixes the account's parts of the state file). */
const ACCOUNT_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** A fresh key in the platform's style; the emulator prints it, nothing else ever does. */
export function generateApiKey(): string {
  return `cp_emu_${randomBytes(18).toString("hex")}`;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const timeScale = options.timeScale ?? 1;
  if (!(timeScale > 0 && Number.isFinite(timeScale))) {
    throw new RangeError(`timeScale must be a positive number, got ${timeScale}`);
  }
  const keys = options.keys ?? [{ key: generateApiKey(), scopes: ["read", "write"] as Scope[] }];
  if (keys.length === 0) throw new RangeError("keys must hold at least one key");
  keys.forEach((k, i) => {
    if (k.account !== undefined && !ACCOUNT_NAME.test(k.account)) {
      throw new RangeError(`keys[${i}].account must be 1 to 64 letters, digits, '.', '_' or '-', got ${JSON.stringify(k.account)}`);
    }
  });
  const quotas = { ...DEFAULT_QUOTAS, ...options.quotas };
  const quotaSets: [string, Partial<Quotas>][] = [["quotas", quotas], ...keys.map((k, i): [string, Partial<Quotas>] => [`keys[${i}].quotas`, k.quotas ?? {}])];
  for (const [where, set] of quotaSets) {
    for (const [name, q] of Object.entries(set)) {
      if (!(Number.isInteger(q) && q >= 1)) throw new RangeError(`${where}.${name} must be an integer >= 1, got ${q}`);
    }
  }
  const timings = { ...DEFAULT_TIMINGS, ...options.timings };
  for (const [name, t] of Object.entries(timings)) {
    if (!(t >= 0 && Number.isFinite(t))) throw new RangeError(`timings.${name} must be >= 0 ms, got ${t}`);
  }
  const logCapacity = options.requestLogSize ?? 1000;
  if (!(Number.isInteger(logCapacity) && logCapacity >= 1)) {
    throw new RangeError(`requestLogSize must be an integer >= 1, got ${logCapacity}`);
  }
  const exchangeCapacity = options.recordExchanges ?? 0;
  if (!(Number.isInteger(exchangeCapacity) && exchangeCapacity >= 0)) {
    throw new RangeError(`recordExchanges must be an integer >= 0, got ${exchangeCapacity}`);
  }
  for (const [name, v] of Object.entries(options.jobLimits ?? {})) {
    if (!(Number.isInteger(v) && v >= 1)) throw new RangeError(`jobLimits.${name} must be an integer >= 1, got ${v}`);
  }
  const server = new EmulatorServer({
    keys,
    quotas,
    timings,
    timeScale,
    faults: options.faults ?? {},
    stateFile: options.stateFile,
    logCapacity,
    exchangeCapacity,
    graphqlSaveResets: options.graphqlSaveResets ?? false,
    listOrder: options.listOrder ?? "created",
    clock: options.clock ?? Date,
    handler: options.handler,
    jobLimits: options.jobLimits,
    allowedHosts: options.allowedHosts ?? [],
  });
  let url: string;
  try {
    url = await server.listen(options.port ?? DEFAULT_PORT, options.host ?? DEFAULT_HOST);
  } catch (err) {
    // A port in use: the state file's lock and the workers' timers must not outlive the failed start.
    await server.close();
    throw err;
  }
  const full = keys.find((k) => k.scopes.includes("read") && k.scopes.includes("write")) ?? keys[0];
  return {
    url,
    apiKey: full.key,
    requestLog: () => server.requestLog(),
    exchanges: () => server.exchanges(),
    counts: () => server.counts(),
    state: (account) => server.state(account),
    states: () => server.states(),
    setFaults: (f) => server.setFaults(f),
    close: () => server.close(),
    advanceClock: (ms) => {
      server.clock.advance(ms);
      server.serverless.endpointJobs.sync(server.clock.now());
      // As the control plane's move is: saved, so a restart keeps the times read from it.
      server.persist();
    },
    now: () => server.clock.now(),
  };
}
