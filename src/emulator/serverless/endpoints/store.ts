// Serverless endpoints and their workers; the value rules a save must pass are rules.ts.
//
// Workers carry timestamps only; what a reader sees (STARTING, RUNNING, EXITED, gone) is
// computed from them and `clock.now()` at read time, so there is no timer to stop and a
// time-scaled emulator only has to pass shorter timings.
import { EDITABLE, EMPTY_MEANS_NONE, ENDPOINT_DEFAULTS, type EndpointInput, gqlError, valueViolations } from "./rules";
import { type DiffEntry, endpointDiff, MAX_RELEASES, type ReleaseRecord, releaseId, rolls, type templateChange } from "./releases";


export interface WorkerRecord {
  id: string;
  /** clock.now() when the worker was asked for; RUNNING from createdAt + startingMs. */
  createdAt: number;
  /** clock.now() when a scale-down picked it; EXITED until drainingSince + drainMs, then gone. */
  drainingSince: number | null;
  /** When it is started (INITIALIZING before): createdAt + the starting time, shorter with FlashBoot. */
  readyAt?: number;
  /** The job it holds (../jobs/queue.ts); null or absent when idle. Not kept across restarts. */
  jobId?: string | null;
  /** When it last finished a job (its idle timeout counts from then, or from readyAt). */
  idleSince?: number;
  /** The endpoint version it runs: stale while below the endpoint's. */
  version: number;
  /** The image it runs: its endpoint's image when it was started. */
  image: string | null;
  /** Its image matched the `errorImages` fault when it was started: it never becomes ready (UNHEALTHY). */
  cannotStart?: boolean;
  /** Started by a rollout in place of a stale worker: once ready, it retires one (../jobs/rollout.ts). */
  replacing?: boolean;
  /** A stale worker a replacement took over: it finishes its job, takes no other, then drains. */
  retiring?: boolean;
}

/** A live worker's state: starting, cannot start, or started with a job or without. */
export type WorkerState = "INITIALIZING" | "UNHEALTHY" | "IDLE" | "RUNNING";

/** The state of a live worker at `now`, given when it is (or was) ready. */
export function workerState(w: WorkerRecord, readyAt: number, now: number): WorkerState {
  if (now < readyAt) return "INITIALIZING";
  if (w.cannotStart) return "UNHEALTHY";
  return w.jobId ? "RUNNING" : "IDLE";
}

/** The workers an endpoint keeps: the live ones, less the replacements a rollout is starting beside them. */
export function keptWorkers(ep: EndpointRecord): WorkerRecord[] {
  return ep.workers.filter((w) => w.drainingSince === null && !w.replacing);
}

/** What the store tells about its workers: billing meters a worker from start to leave. */
export interface WorkerHooks {
  /** A worker started (`start`) or began to drain (`leave`) at clock time `at`. */
  onWorker?: (ep: EndpointRecord, w: WorkerRecord, event: "start" | "leave", at: number) => void;
  /** Called before workers are read, so jobs and scaling are replayed up to `now` first. */
  sync?: (now: number) => void;
  /** The image of a template (what an endpoint bound to it starts); null when unknown. */
  imageOf?: (templateId: string) => string | null;
  /** Whether an image cannot start (the `errorImages` fault). */
  failsToStart?: (image: string) => boolean;
}

/** FlashBoot starts a worker this many times faster than a cold start. */
export const FLASHBOOT_SPEEDUP = 10;

export interface EndpointRecord {
  id: string;
  name: string;
  gpuIds: string;
  templateId: string;
  type: string;
  idleTimeout: number;
  locations: string | null;
  flashBootType: string;
  scalerType: string;
  scalerValue: number;
  workersMin: number;
  workersMax: number;
  networkVolumeId: string | null;
  /** GPUs per worker, at least 1. */
  gpuCount: number;
  /** A job's limit in ms, 0 for none. */
  executionTimeoutMs: number;
  /** REST's own placement preference: GraphQL neither shows nor changes it (it has `locations`). */
  dataCenterIds: string[];
  createdAt: number;
  workers: WorkerRecord[];
  /** The latest version (`endpointVersion`): 1 at creation, + 1 per release. */
  version: number;
  /** The image workers of the latest version start: the bound template's at the latest release. */
  image: string | null;
  /** Newest first, at most MAX_RELEASES. */
  releases: ReleaseRecord[];
}

export interface WorkerView {
  id: string;
  desiredStatus: "STARTING" | "RUNNING" | "EXITED";
}

export interface Timings {
  startingMs: number;
  drainMs: number;
}

/** A change of the bound template as a release names it, and the image it leaves. */
export type TemplateChange = ReturnType<typeof templateChange>;

/** An endpoint as a state file holds it: files written before releases lack the image and the workers' versions. */
export type Restored = Omit<EndpointRecord, "image" | "workers"> & {
  image?: string | null;
  workers: (Omit<WorkerRecord, "version" | "image"> & { version?: number; image?: string | null })[];
};


export class EndpointStore {
  private readonly byId = new Map<string, EndpointRecord>();
  idCounter = 0;
  workerCounter = 0;
  hooks: WorkerHooks = {};

  constructor(
    private readonly timings: Timings,
    private readonly random: () => number,
  ) {}

  list(): EndpointRecord[] {
    return [...this.byId.values()];
  }

  get(id: string): EndpointRecord | undefined {
    return this.byId.get(id);
  }

  /**
   * Create (no `id`) or modify (with `id`); throws a GraphQLError with the platform's code.
   * `resetLeftOut`: a modify puts every optional field it leaves out back to its default (the
   * behaviour a client of the live platform reports for GraphQL saves), instead of keeping it.
   */
  save(
    input: EndpointInput,
    now: number,
    refViolations?: (next: EndpointRecord) => string[],
    { resetLeftOut = false, template }: { resetLeftOut?: boolean; template?: TemplateChange } = {},
  ): EndpointRecord {
    // Jobs and scaling replayed up to now first: the copy below then starts from current workers.
    this.hooks.sync?.(now);
    const id = input.id;
    const existing = typeof id === "string" ? this.byId.get(id) : undefined;
    if (typeof id === "string" && !existing)
      throw gqlError("NOT_FOUND", `endpoint ${JSON.stringify(id)} not found`);

    const violations = valueViolations(input);
    // The provider replaces an endpoint whose type changes; the platform agrees by refusing
    // the change in place, so the two readings cannot drift apart (issue 14).
    if (existing && Object.hasOwn(input, "type") && input.type !== existing.type)
      violations.push(
        `input.type is fixed at creation (this endpoint is ${existing.type}); create a new endpoint for ${String(input.type)}`,
      );
    // `type` is fixed at creation: it has no default to go back to.
    const { type: _fixed, ...resettable } = ENDPOINT_DEFAULTS;
    const next: EndpointRecord = existing
      ? { ...existing, ...(resetLeftOut ? resettable : {}), workers: [...existing.workers] }
      : {
          id: "",
          name: "",
          gpuIds: "",
          templateId: "",
          ...ENDPOINT_DEFAULTS,
          dataCenterIds: [],
          createdAt: now,
          workers: [],
          version: 1,
          image: null,
          releases: [],
        };
    for (const key of EDITABLE) {
      if (Object.hasOwn(input, key)) (next as any)[key] = input[key];
    }
    for (const key of EMPTY_MEANS_NONE) if (next[key] === "") next[key] = null;
    if (violations.length === 0 && next.workersMin > next.workersMax)
      violations.push(
        `input.workersMin (${next.workersMin}) must not exceed workersMax (${next.workersMax})`,
      );
    if (violations.length === 0 && refViolations) violations.push(...refViolations(next));
    if (violations.length > 0) throw gqlError("BAD_USER_INPUT", violations.join("; "));
    // Only an accepted create takes an id, so a refused one leaves nothing behind.
    if (!existing) {
      next.id = this.freshId();
      next.releases = [{ id: releaseId(next.id, 1), version: 1, createdAt: now, diff: [] }];
    }
    if (!existing || next.templateId !== existing.templateId) next.image = this.hooks.imageOf?.(next.templateId) ?? null;
    if (template) next.image = template.image;
    if (existing) this.release(next, [...endpointDiff(existing, next), ...(template?.diff ?? [])], now);
    this.reconcile(next, now);
    this.byId.set(next.id, next);
    // A release that rolls starts its first replacements now.
    this.hooks.sync?.(now);
    return next;
  }

  /**
   * The bound template changed (a PATCH of it, or of a REST endpoint's container): a release on
   * every endpoint bound to it but `except` (whose own save already named the change).
   */
  templateChanged(templateId: string, change: TemplateChange, now: number, except?: string): void {
    const bound = [...this.byId.values()].filter((ep) => ep.templateId === templateId && ep.id !== except);
    if (change.diff.length === 0 || bound.length === 0) return;
    this.hooks.sync?.(now);
    for (const ep of bound) {
      ep.image = change.image;
      this.release(ep, change.diff, now);
    }
    this.hooks.sync?.(now);
  }

  /**
   * A new version, when the diff names a field. One that rolls leaves every worker on its
   * version (stale now: ../jobs/rollout.ts replaces them); one that does not moves the workers
   * of the previous version to the new one where they stand.
   */
  private release(ep: EndpointRecord, diff: DiffEntry[], now: number): void {
    if (diff.length === 0) return;
    const previous = ep.version;
    ep.version = previous + 1;
    ep.releases = [{ id: releaseId(ep.id, ep.version), version: ep.version, createdAt: now, diff }, ...ep.releases].slice(0, MAX_RELEASES);
    if (!rolls(diff)) for (const w of ep.workers) if (w.version === previous) w.version = ep.version;
  }

  delete(id: string): void {
    const ep = this.byId.get(id);
    if (!ep) throw gqlError("NOT_FOUND", `endpoint ${JSON.stringify(id)} not found`);
    if (ep.workersMin !== 0 || ep.workersMax !== 0)
      throw gqlError(
        "FAILED_PRECONDITION",
        `endpoint ${JSON.stringify(id)} has workersMin=${ep.workersMin} and workersMax=${ep.workersMax}; set both to 0 with saveEndpoint before deleting it`,
      );
    this.byId.delete(id);
  }

  /** Deleted by the platform (an outside event): workers or not, the endpoint is gone. */
  remove(id: string, now: number): boolean {
    const ep = this.byId.get(id);
    // Its workers stop billing when it goes.
    if (ep) for (const w of ep.workers) if (w.drainingSince === null) this.drainWorker(ep, w, now);
    return this.byId.delete(id);
  }

  /** Clock ms a new worker of `ep` is starting: the starting time, a tenth of it with FlashBoot. */
  startMs(ep: EndpointRecord): number {
    return ep.flashBootType === "OFF" ? this.timings.startingMs : this.timings.startingMs / FLASHBOOT_SPEEDUP;
  }

  /**
   * Starts one more worker of `ep` at `at`, of its latest version and image (the job queue's
   * scaler, the workersMin rule, and a rollout's replacements, which say `replacing`).
   */
  addWorker(ep: EndpointRecord, at: number, { replacing = false } = {}): WorkerRecord {
    this.workerCounter += 1;
    const w: WorkerRecord = {
      id: `${ep.id}-w${this.workerCounter}`,
      createdAt: at,
      drainingSince: null,
      readyAt: at + this.startMs(ep),
      jobId: null,
      version: ep.version,
      image: ep.image,
    };
    if (ep.image !== null && this.hooks.failsToStart?.(ep.image)) w.cannotStart = true;
    if (replacing) w.replacing = true;
    ep.workers.push(w);
    this.hooks.onWorker?.(ep, w, "start", at);
    return w;
  }

  /** The worker leaves at `at`: EXITED for drainMs, then gone; it stops billing. */
  drainWorker(ep: EndpointRecord, w: WorkerRecord, at: number): void {
    w.drainingSince = at;
    w.jobId = null;
    delete w.replacing;
    delete w.retiring;
    this.hooks.onWorker?.(ep, w, "leave", at);
  }

  /** When a worker is (or was) ready: absent from state files written before jobs, the starting time after its creation. */
  readyAt(ep: EndpointRecord, w: WorkerRecord): number {
    return w.readyAt ?? w.createdAt + this.startMs(ep);
  }

  /** The live workers and their states at `now`, jobs and rollouts replayed first. */
  listed(ep: EndpointRecord, now: number): { worker: WorkerRecord; state: WorkerState }[] {
    this.hooks.sync?.(now);
    return ep.workers.filter((w) => w.drainingSince === null).map((worker) => ({ worker, state: workerState(worker, this.readyAt(ep, worker), now) }));
  }

  /**
   * What GraphQL's `pods` shows at `now`: drained workers are gone, and a worker that cannot
   * start reads STARTING (GraphQL has no state for it).
   */
  workersAt(ep: EndpointRecord, now: number): WorkerView[] {
    this.hooks.sync?.(now);
    const out: WorkerView[] = [];
    for (const w of ep.workers) {
      if (w.drainingSince !== null) {
        if (now < w.drainingSince + this.timings.drainMs)
          out.push({ id: w.id, desiredStatus: "EXITED" });
      } else {
        const state = workerState(w, this.readyAt(ep, w), now);
        out.push({ id: w.id, desiredStatus: state === "INITIALIZING" || state === "UNHEALTHY" ? "STARTING" : "RUNNING" });
      }
    }
    return out;
  }

  /**
   * Bring the live worker count to workersMin: start missing ones; the newest surplus without a
   * job drain at once, and workers holding a job stay as long as workersMax allows (the job
   * queue's idle timeout sends them away once they are done).
   */
  private reconcile(ep: EndpointRecord, now: number): void {
    ep.workers = ep.workers.filter(
      (w) => w.drainingSince === null || now < w.drainingSince + this.timings.drainMs,
    );
    // A rollout's replacements are extra: they take a stale worker's place, not a kept one's.
    const live = keptWorkers(ep);
    for (let i = live.length; i < ep.workersMin; i++) this.addWorker(ep, now);
    // Newest first (the last added among equals): they are the least likely to be started.
    const newestFirst = live.reverse().sort((a, b) => b.createdAt - a.createdAt);
    let count = live.length;
    for (const w of [...newestFirst.filter((x) => !x.jobId), ...newestFirst.filter((x) => x.jobId)]) {
      if (count <= ep.workersMin || (w.jobId && count <= ep.workersMax)) break;
      this.drainWorker(ep, w, now);
      count--;
    }
  }

  private freshId(): string {
    // The counter makes ids unique; the random tail keeps them from looking sequential. The
    // loop only matters for a hand-edited state file whose counter lags its endpoints.
    for (;;) {
      this.idCounter += 1;
      let tail = "";
      for (let i = 0; i < 10; i++) tail += Math.floor(this.random() * 36).toString(36);
      const id = `${this.idCounter.toString(36).padStart(4, "0")}${tail}`;
      if (!this.byId.has(id)) return id;
    }
  }

  /** Plain JSON of everything, for --state-file. */
  toJSON(): { idCounter: number; workerCounter: number; endpoints: EndpointRecord[] } {
    return {
      idCounter: this.idCounter,
      workerCounter: this.workerCounter,
      // A held job is not kept (jobs live in memory only): its worker restores idle.
      endpoints: structuredClone(this.list()).map((ep) => ({ ...ep, workers: ep.workers.map(({ jobId: _job, ...w }) => w) })),
    };
  }

  /**
   * Replaces everything with a snapshot. One written before releases has no image: its
   * endpoints and workers take their template's (`imageOf`), as no worker ran another.
   */
  load(s: { idCounter: number; workerCounter: number; endpoints: Restored[] }, imageOf: (templateId: string) => string | null): void {
    this.byId.clear();
    for (const saved of structuredClone(s.endpoints)) {
      const image = saved.image === undefined ? imageOf(saved.templateId) : saved.image;
      const workers = saved.workers.map((w) => ({ ...w, version: w.version ?? saved.version, image: w.image === undefined ? image : w.image }));
      this.byId.set(saved.id, { ...saved, image, workers });
    }
    this.idCounter = s.idCounter;
    this.workerCounter = s.workerCounter;
  }
}
