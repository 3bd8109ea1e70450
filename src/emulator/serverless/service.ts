// The GraphQL side (endpoint management) and hosted models of the
// emulator, behind one class that knows no HTTP: the server authenticates, rate-limits and
// routes, then calls in here. Choices the platform leaves open are listed in ./README.md.
//
//   POST /graphql            -> executeGraphql(body, { canWrite })
//   POST /v2/{id}/runsync    -> runSync(id, body, wait)    (hosted-models/jobs.ts: one job store
//   POST /v2/{id}/run        -> run(id, body)               behind runsync, run, status and
//   GET  /v2/{id}/status/{job}, /status-sync/{job} -> status(id, job, wait)   status-sync)
//   GET  /images/<name>.png  -> image(path)
import { z } from "zod";
import { EndpointStore, type EndpointRecord, type Timings, type WorkerView } from "./endpoints/store";
import { type EndpointInput, gqlError } from "./endpoints/rules";
import { type GraphqlCaller, type RequestContext, runGraphql } from "./graphql/execute";
import { ModelJobs } from "./hosted-models/jobs";
import { JobCalls } from "./jobs/calls";
import type { JobHandler, JobLimits } from "./jobs/job";
import { EndpointJobs } from "./jobs/queue";
import type { WorkerHooks } from "./endpoints/store";
import { renderImage } from "./hosted-models/models";
import { type ServerlessDiscount, type ServerlessSnapshot, snapshotSchema } from "./snapshot";
import { type ReleasedTemplate, templateChange } from "./endpoints/releases";

export { GPU_TIERS, LOCATIONS, MAX_WORKERS, ENDPOINT_DEFAULTS } from "./endpoints/rules";
export { IMAGE_MODELS, MAX_PIXELS_PER_SIDE } from "./hosted-models/models";
export { SCHEMA_SDL } from "./graphql/schema";
export type { ServerlessDiscount, ServerlessSnapshot } from "./snapshot";

export interface ServerlessServiceOptions {
  /** Milliseconds since the epoch; workers' states are computed from it on every read. */
  clock: { now(): number };
  /** How long a new worker is STARTING, and how long a drained worker stays EXITED. */
  timings: Timings;
  /** Uniform in [0, 1); the source of the random part of ids. */
  random: () => number;
  /** Base of `output.image_url`, read at call time because the port is known only after listen. */
  imageBaseUrl: () => string;
  /**
   * What `myself { serverlessDiscount }` answers.
   * @default null (no discount applies)
   */
  serverlessDiscount?: ServerlessDiscount | null;
  /**
   * The other groups an endpoint names: `templateId` must be one of the owner's
   * serverless templates, `networkVolumeId` one of the owner's volumes (else BAD_USER_INPUT).
   * @default undefined (the service alone: references are not checked)
   */
  references?: {
    isServerlessTemplate: (id: string) => boolean;
    volumeExists: (id: string) => boolean;
  };
  /**
   * The image of a template: what an endpoint bound to it starts, and what its workers show.
   * @default none (workers show a null image)
   */
  templateImage?: (templateId: string) => string | null;
  /**
   * Whether a worker of this image cannot start (the emulator's `errorImages` fault): it stays
   * UNHEALTHY and takes no job.
   * @default every image starts
   */
  failsToStart?: (image: string) => boolean;
  /**
   * How a hosted-model job goes: its length in emulated ms and whether it fails (the
   * emulator's `modelJobMs` and `failingPrompts` faults).
   * @default every job completes at once
   */
  modelJob?: (prompt: string) => { durationMs: number; fails: boolean };
  /**
   * A GraphQL `saveEndpoint` with `id` puts every optional field it leaves out back to its
   * default (as a client of the live platform reports), instead of keeping it. REST updates stay
   * sparse either way.
   * @default false (left-out fields keep their values)
   */
  graphqlSaveResets?: boolean;
  /** Emulated ms per real ms: a runsync call waits `min(job, wait) / timeScale` real ms. @default 1 */
  timeScale?: number;
  /**
   * The worker of every account endpoint's jobs, in place of the test worker: it receives the
   * job and returns its output (or a promise of it), or throws to fail it.
   * @default undefined (the test worker: echo, sleep_ms, fail, stream)
   */
  handler?: JobHandler;
  /** Limits on an endpoint's jobs and on held calls. @default DEFAULT_JOB_LIMITS */
  jobLimits?: Partial<JobLimits>;
  /** Told when a worker starts and when it leaves (billing meters it in between). */
  onWorker?: WorkerHooks["onWorker"];
}

/** An endpoint as a reader sees it: the platform's endpoint fields with `pods` at the current time. */
export interface EndpointView extends Omit<EndpointRecord, "workers" | "createdAt" | "dataCenterIds" | "version" | "image" | "releases"> {
  pods: WorkerView[];
}

/** What a hosted-model route answers: problem+json bodies carry their media type in `headers`. */
export type ModelReply = { status: number; body: unknown; headers?: Record<string, string> };

export class ServerlessService {
  private readonly store: EndpointStore;
  private readonly jobs: ModelJobs;
  /** Jobs on the account's own endpoints (their queues and workers). */
  readonly endpointJobs: EndpointJobs;
  /** The job routes of an account's endpoint. */
  readonly jobCalls: JobCalls;
  private discount: ServerlessDiscount | null;

  constructor(private readonly opts: ServerlessServiceOptions) {
    this.store = new EndpointStore(opts.timings, opts.random);
    this.jobs = new ModelJobs(opts);
    this.endpointJobs = new EndpointJobs({
      store: this.store,
      clock: opts.clock,
      random: opts.random,
      timeScale: opts.timeScale ?? 1,
      handler: opts.handler,
      limits: opts.jobLimits,
    });
    this.store.hooks = {
      onWorker: opts.onWorker,
      sync: (now) => this.endpointJobs.sync(now),
      imageOf: (id) => opts.templateImage?.(id) ?? null,
      failsToStart: opts.failsToStart,
    };
    this.jobCalls = new JobCalls(this.endpointJobs);
    this.discount = opts.serverlessDiscount ?? null;
  }

  /**
   * Run one GraphQL request. Called after auth and rate limiting. `canRead` false makes every
   * query field, `canWrite` false every mutation field, answer FORBIDDEN. `ops` names the root
   * fields that ran, in order.
   */
  async executeGraphql(body: unknown, caller: GraphqlCaller): Promise<{ status: number; body: unknown; ops: string[] }> {
    return runGraphql(body, caller, this.opts.clock.now(), this.rootValue(), () => {
      const all = this.store.list();
      return { endpoints: all.length, workers: all.reduce((n, ep) => n + ep.workers.length, 0) };
    });
  }

  /**
   * Call a hosted model synchronously, waiting at most `wait` ms (the query value):
   * a job still running then answers IN_PROGRESS without output, a failed one FAILED with
   * `error`. Error bodies are problem+json objects, and carry the media type in
   * `headers` so a server passing them through sends it.
   */
  /** A hosted model's held call, counted against the same heldCalls limit as an endpoint's. */
  private async held(call: () => Promise<ModelReply>): Promise<ModelReply> {
    const release = this.endpointJobs.holdOther();
    if (!release) return this.endpointJobs.tooManyHeld();
    try {
      return await call();
    } finally {
      release();
    }
  }

  async runSync(modelId: string, body: unknown, waitParam: string | null = null): Promise<ModelReply> {
    return this.held(() => this.jobs.runSync(modelId, body, waitParam));
  }

  /** Submit a job without waiting for it: 200 `{ id, status: "IN_QUEUE" }`. */
  run(modelId: string, body: unknown): ModelReply {
    return this.jobs.run(modelId, body);
  }

  /**
   * A job's current answer (`status/{jobId}`), or with `waitParam` (`status-sync/{jobId}?wait=`,
   * null for the default) held up to `wait` for the job to finish; 404 for a job the model never had.
   */
  async status(modelId: string, jobId: string, waitParam?: string | null): Promise<ModelReply> {
    if (waitParam === undefined) return this.jobs.status(modelId, jobId);
    return this.held(() => this.jobs.status(modelId, jobId, waitParam));
  }

  /** The PNG behind an `output.image_url` path (`/images/<name>.png`), or undefined. */
  image(path: string): Buffer | undefined {
    return renderImage(path);
  }

  /** All state as plain JSON: endpoints, workers with their timestamps, id counters. */
  snapshot(): ServerlessSnapshot {
    return {
      version: 1,
      ...this.store.toJSON(),
      runCounter: this.jobs.runCounter,
      serverlessDiscount: this.discount ? { ...this.discount } : null,
    };
  }

  /** Replace all state with a snapshot; throws, changing nothing, when it is not one. */
  restore(s: unknown): void {
    const parsed = snapshotSchema.safeParse(s);
    if (!parsed.success)
      throw new Error(`not a serverless snapshot: ${z.prettifyError(parsed.error)}`);
    this.store.load(parsed.data, (id) => this.opts.templateImage?.(id) ?? null);
    this.jobs.runCounter = parsed.data.runCounter;
    this.discount = parsed.data.serverlessDiscount;
  }

  /** Endpoints as a reader sees them now, for the emulator's introspection (with REST's dataCenterIds). */
  endpoints(): readonly (EndpointView & { dataCenterIds: string[] })[] {
    const now = this.opts.clock.now();
    return Object.freeze(this.store.list().map((ep) => ({ ...this.view(ep, now), dataCenterIds: [...ep.dataCenterIds] })));
  }

  /**
   * A template changed: every endpoint bound to it but `except` (whose own save named the
   * change already) makes a release of the fields a release names; a change of none makes none.
   */
  templateChanged(before: ReleasedTemplate, after: ReleasedTemplate & { id: string }, except?: string): void {
    this.store.templateChanged(after.id, templateChange(before, after), this.opts.clock.now(), except);
  }

  /** Deletes an endpoint from outside the account's requests (the emulator's outside event); false when there is none. */
  removeFromOutside(id: string): boolean {
    return this.store.remove(id, this.opts.clock.now());
  }

  /**
   * Stops the job queue's timer (armed only while a job with a webhook is unfinished) and
   * releases waiting calls. Workers are computed from timestamps, images rendered on request.
   */
  close(): void {
    this.endpointJobs.close();
  }

  /** The endpoint that names `id` as its template or network volume, if any. */
  endpointUsing(field: "templateId" | "networkVolumeId", id: string): string | undefined {
    const ep = this.store.list().find((e) => e[field] === id);
    return ep ? `serverless endpoint '${ep.id}'` : undefined;
  }

  private refViolations(next: EndpointRecord): string[] {
    const refs = this.opts.references;
    if (!refs) return [];
    const out: string[] = [];
    if (!refs.isServerlessTemplate(next.templateId))
      out.push(`input.templateId ${JSON.stringify(next.templateId)} is not one of your serverless templates`);
    if (next.networkVolumeId && !refs.volumeExists(next.networkVolumeId))
      out.push(`input.networkVolumeId ${JSON.stringify(next.networkVolumeId)} is not one of your network volumes`);
    return out;
  }

  /** The one store behind both interfaces: REST v2's `/v2/serverless` reads and writes it too. */
  get endpointStore(): EndpointStore {
    return this.store;
  }

  private view(ep: EndpointRecord, now: number): EndpointView {
    // Releases are REST's (GraphQL has no field for them): listEndpointReleases reads them.
    const { workers: _w, createdAt: _c, dataCenterIds: _d, version: _v, image: _i, releases: _r, ...fields } = ep;
    return {
      ...fields,
      // GraphQL's Int and two-value enum over the values REST may have stored.
      scalerValue: Math.ceil(fields.scalerValue),
      flashBootType: fields.flashBootType === "PRIORITY_FLASHBOOT" ? "FLASHBOOT" : fields.flashBootType,
      pods: this.store.workersAt(ep, now),
    };
  }

  private rootValue() {
    const requireWrite = (ctx: RequestContext, field: string) => {
      if (!ctx.canWrite)
        throw gqlError("FORBIDDEN", `${field} needs a key with write access; this key is read-only`);
    };
    return {
      myself: (_args: unknown, ctx: RequestContext) => {
        ctx.ops.push("myself");
        if (!ctx.canRead) throw gqlError("FORBIDDEN", "myself needs a key with the 'read' scope");
        return {
          endpoints: () => this.store.list().map((ep) => this.view(ep, ctx.now)),
          serverlessDiscount: this.discount,
        };
      },
      saveEndpoint: (args: { input: EndpointInput }, ctx: RequestContext) => {
        ctx.ops.push("saveEndpoint");
        requireWrite(ctx, "saveEndpoint");
        // GraphQL's scalerValue is an integer and at least 1; REST may store a value down to 0.5.
        const scaler = args.input.scalerValue;
        if (typeof scaler === "number" && scaler < 1)
          throw gqlError("BAD_USER_INPUT", `input.scalerValue must be >= 1, got ${scaler}`);
        const resetLeftOut = this.opts.graphqlSaveResets ?? false;
        return this.view(this.store.save(args.input, ctx.now, (next) => this.refViolations(next), { resetLeftOut }), ctx.now);
      },
      deleteEndpoint: (args: { id: string }, ctx: RequestContext) => {
        ctx.ops.push("deleteEndpoint");
        requireWrite(ctx, "deleteEndpoint");
        this.store.delete(args.id);
        return null;
      },
    };
  }
}
