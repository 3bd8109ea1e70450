/*
 * ServerlessEndpoint: lifecycle -> API calls (all GraphQL, POST /graphql)
 *
 *   check   no request. Allowed values of spec 2.9, integers >= 0, workersMin <= workersMax;
 *           defaults filled (type QB, wait settings); the owner token and an auto-name from
 *           it (naming.ts), both kept across updates.
 *   diff    no request. type -> replace (the kind is fixed); any other field -> update in
 *           place. A field left out of the program is the platform's choice: never a diff.
 *   create  auto-named: myself { endpoints } (shared: one for a stack's creates) for the
 *           endpoints of that name, earlier tries of this create, taken over by a replacement
 *           or deleted once this one exists. Then saveEndpoint(input: {name, gpuIds, templateId, type, ...given fields}) (after an
 *           ambiguous failure, a few more looks by name),
 *           then, unless waitForWorkers is false, myself { endpoints } until workersMin
 *           workers are RUNNING (readyTimeoutSeconds). A failed wait keeps the id: Pulumi
 *           records the endpoint and the next `up` waits again.
 *   read    myself { endpoints } (by id); gone -> gone.
 *   update  saveEndpoint(input: {id, name, gpuIds, templateId, type, ...changed fields}),
 *           nothing sent when only the wait settings changed; then the same wait as create.
 *   delete  saveEndpoint(input: {id, ..., workersMin: 0, workersMax: 0}) unless already 0/0,
 *           myself { endpoints } until no worker is listed (draining ones included), then
 *           deleteEndpoint(id). A refused delete (FAILED_PRECONDITION: someone scaled it up
 *           again) starts over from the scale-down, with backoff, within drainTimeoutSeconds.
 *           Gone at any step is success. Every step is repeatable, so a delete that fails
 *           midway is finished by the next `pulumi destroy`.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ComputePlatform } from "../client";
import { type Clock, systemClock } from "../client/core/clock";
import { AmbiguousRequestError, ConflictError, NotFoundError } from "../client/core/errors";
import type { Endpoint as WireEndpoint, EndpointInput as WireEndpointInput } from "../client/schemas";
import { baseOf as baseOfKind, lookAgain, OWNER_TOKEN_KEY, ownerInputs, Predecessors, SharedList } from "./naming";
import { registerProvider } from "./providers";
import { platform } from "./runtime";
import {
  changedSavedFields,
  checkEndpointInputs,
  DEFAULT_DRAIN_TIMEOUT_SECONDS,
  DEFAULT_READY_TIMEOUT_SECONDS,
  DEFAULT_TYPE,
  ENDPOINT_KIND,
  type EndpointInputs,
  type EndpointType,
  endpointInputsSchema,
  type FlashBootType,
  type GpuId,
  isOwnerNamed,
  LOGICAL_NAME_KEY,
  planEndpointDiff,
  SAVED_FIELDS,
  type ScalerType,
} from "./serverless-endpoint-plan";
import { shimProvider } from "./shim";
import { PodPoller, PodWaitTimeoutError, pollFromEnv } from "./wait";

export {
  ENDPOINT_TYPES,
  FLASH_BOOT_TYPES,
  GPU_IDS,
  LOCATIONS,
  SCALER_TYPES,
} from "./serverless-endpoint-plan";
export { endpointInputsSchema as serverlessEndpointSchema };

/** Arguments of a {@link ServerlessEndpoint}: the fields of spec 2.9 that `saveEndpoint` takes. */
export interface ServerlessEndpointArgs {
  /**
   * The endpoint's name on the platform, any non-empty string. Changing it renames the
   * endpoint in place. Leave it out to be covered after an interrupted deployment: an endpoint
   * has nowhere else to carry its owner token, and a name you give may be another stack's too,
   * so an endpoint made by a create whose plugin was killed is then not found again (README, limits).
   * @default the resource's logical name plus 7 hex characters of its owner token (e.g.
   * `api-1a2b3c4`), the same for a retried create, apart across stacks
   */
  name?: pulumi.Input<string>;
  /**
   * GPU tier of the workers: `AMPERE_16` (16 GB), `AMPERE_24` (24 GB), `ADA_24` (24 GB Ada),
   * `AMPERE_48` (48 GB), `ADA_48_PRO` (48 GB Ada Pro), `AMPERE_80` (80 GB) or `ADA_80_PRO`
   * (80 GB Ada Pro). Changes in place.
   */
  gpuIds: pulumi.Input<GpuId>;
  /** ID of the Serverless template the workers run. Changes in place. */
  templateId: pulumi.Input<string>;
  /**
   * `QB` (queue-based) or `LB` (load balancing). Fixed at creation: changing it replaces the
   * endpoint (a new one is made, then the old one is scaled to zero and deleted).
   * @default "QB"
   */
  type?: pulumi.Input<EndpointType>;
  /**
   * Seconds before an idle worker shuts down, an integer >= 0.
   * @default the platform's choice (left out of the request)
   */
  idleTimeout?: pulumi.Input<number>;
  /**
   * Region restriction: `CZ`, `FR`, `GB`, `NO`, `RO` or `US`, or several as a comma-separated
   * list (`"US,RO"`); `""` or `null` means any region.
   * @default the platform's choice (any region)
   */
  locations?: pulumi.Input<string | null>;
  /**
   * `FLASHBOOT` for faster cold starts, or `OFF`.
   * @default the platform's choice
   */
  flashBootType?: pulumi.Input<FlashBootType>;
  /**
   * Autoscaling strategy: `QUEUE_DELAY` or `REQUEST_COUNT`.
   * @default the platform's choice
   */
  scalerType?: pulumi.Input<ScalerType>;
  /**
   * Target value for the scaler, an integer >= 0 (for `QUEUE_DELAY`, a delay in seconds).
   * @default the platform's choice
   */
  scalerValue?: pulumi.Input<number>;
  /**
   * Workers kept running at all times, an integer >= 0 and <= `workersMax`; 0 scales to zero.
   * @default the platform's choice (0)
   */
  workersMin?: pulumi.Input<number>;
  /**
   * Most workers running at once, an integer >= `workersMin`.
   * @default the platform's choice
   */
  workersMax?: pulumi.Input<number>;
  /**
   * ID of a network volume the workers mount; `null` for none.
   * @default none
   */
  networkVolumeId?: pulumi.Input<string | null>;
  /**
   * Whether create and update wait until `workersMin` workers are RUNNING. With `false` they
   * return as soon as the platform has accepted the endpoint.
   * @default true
   */
  waitForWorkers?: pulumi.Input<boolean>;
  /**
   * How long create and update wait for `workersMin` RUNNING workers, in seconds (1..86400).
   * When it runs out the endpoint is kept in state and the deployment fails; the next `up`
   * waits again.
   * @default 600 (10 minutes)
   */
  readyTimeoutSeconds?: pulumi.Input<number>;
  /**
   * How long delete may take to scale the endpoint to zero, wait for its workers to drain
   * and get the platform to accept the deletion, in seconds (1..86400).
   * @default 600 (10 minutes)
   */
  drainTimeoutSeconds?: pulumi.Input<number>;
}

/** One worker of an endpoint, as read back. */
export interface EndpointWorkerOutput {
  /** `STARTING`, `RUNNING`, or `EXITED` while draining. */
  desiredStatus: string;
}

/** What a ServerlessEndpoint holds in state: the endpoint as read back, plus the wait settings. */
export interface ServerlessEndpointOutputs {
  /** The endpoint's name. */
  name: string;
  /** GPU tier of the workers. */
  gpuIds: string;
  /** Serverless template of the workers. */
  templateId: string;
  /** `QB` or `LB`. */
  type: string;
  /** Seconds before idle workers shut down; null when the platform reports none. */
  idleTimeout: number | null;
  /** Region restriction; null for any region. */
  locations: string | null;
  /** `OFF` or `FLASHBOOT`; null when the platform reports none. */
  flashBootType: string | null;
  /** `QUEUE_DELAY` or `REQUEST_COUNT`; null when the platform reports none. */
  scalerType: string | null;
  /** Target value of the scaler; null when the platform reports none. */
  scalerValue: number | null;
  /** Minimum workers. */
  workersMin: number | null;
  /** Maximum workers. */
  workersMax: number | null;
  /** Mounted network volume; null for none. */
  networkVolumeId: string | null;
  /** The workers when last read. */
  pods: EndpointWorkerOutput[];
  /** @default true */
  waitForWorkers: boolean;
  /** @default 600 */
  readyTimeoutSeconds: number;
  /** @default 600 */
  drainTimeoutSeconds: number;
}

/** Dependencies of the provider; tests inject a client, a clock, short polls and a signal. */
export interface ServerlessEndpointProviderOptions {
  /**
   * The client to call.
   * @default the process-wide client of `runtime.ts` (stack config, then environment)
   */
  client?: () => Pick<ComputePlatform, "endpoints">;
  /**
   * Time source of every wait.
   * @default the system clock
   */
  clock?: Clock;
  /**
   * First pause between reads while waiting for workers, in ms; it grows by half each time.
   * @default 1000
   */
  pollIntervalMs?: number;
  /**
   * Longest pause between reads while waiting, in ms.
   * @default 15000
   */
  maxPollIntervalMs?: number;
  /** Cancels any wait in progress. */
  signal?: AbortSignal;
}

/**
 * A create or update whose endpoint exists but did not become ready. `id`, `properties` and
 * `reasons` are what Pulumi's dynamic provider turns into a partial result, so the endpoint is
 * recorded in state instead of being forgotten.
 */
export class EndpointNotReadyError extends Error {
  constructor(
    readonly id: string,
    readonly properties: ServerlessEndpointOutputs,
    readonly reasons: string[],
  ) {
    super(reasons.join("; "));
    this.name = "EndpointNotReadyError";
  }
}

/** Stops a loop that would otherwise run on with a clock that does not advance. */
const MAX_POLLS = 10_000;
/** Extra look-ups after a create whose outcome the client could not settle. */
const AMBIGUOUS_LOOKUPS = 3;
/** Tries to delete an earlier try of a create that did not become the resource's endpoint. */
const RETIRE_ATTEMPTS = 3;

/**
 * An endpoint as the shared poller sees it. The poller backs off while what it waits on is
 * "PROVISIONING" (slow, nothing to see until it ends); every endpoint wait (workers starting,
 * workers draining) is such a phase, so every endpoint reads as one and the pause grows by
 * half each read, as it did when each endpoint polled alone.
 */
type PolledEndpoint = WireEndpoint & { status: "PROVISIONING" };

function runningWorkers(ep: WireEndpoint): number {
  return (ep.pods ?? []).filter((p) => p.desiredStatus === "RUNNING").length;
}

type LocalSettings = Pick<ServerlessEndpointOutputs, "waitForWorkers" | "readyTimeoutSeconds" | "drainTimeoutSeconds">;

function localSettings(from: Partial<LocalSettings> | undefined): LocalSettings {
  return {
    waitForWorkers: from?.waitForWorkers ?? true,
    readyTimeoutSeconds: from?.readyTimeoutSeconds ?? DEFAULT_READY_TIMEOUT_SECONDS,
    drainTimeoutSeconds: from?.drainTimeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_SECONDS,
  };
}

/** The endpoint as state holds it: every key present, null rather than undefined. */
export function endpointOutputs(ep: WireEndpoint, settings: LocalSettings, fallbackType?: string): ServerlessEndpointOutputs {
  return {
    name: ep.name,
    gpuIds: ep.gpuIds,
    templateId: ep.templateId,
    type: ep.type ?? fallbackType ?? DEFAULT_TYPE,
    idleTimeout: ep.idleTimeout ?? null,
    locations: ep.locations ?? null,
    flashBootType: ep.flashBootType ?? null,
    scalerType: ep.scalerType ?? null,
    scalerValue: ep.scalerValue ?? null,
    workersMin: ep.workersMin ?? null,
    workersMax: ep.workersMax ?? null,
    networkVolumeId: ep.networkVolumeId ?? null,
    pods: (ep.pods ?? []).map((p) => ({ desiredStatus: p.desiredStatus })),
    ...settings,
  };
}

/**
 * The inputs a refresh reports: what the platform has now, so the next preview shows a
 * program that no longer matches (drift) as a change. Fields the platform leaves empty are
 * left out, as a program would.
 */
function inputsFromLive(ep: WireEndpoint, settings: LocalSettings): Record<string, unknown> {
  const inputs: Record<string, unknown> = { type: ep.type ?? DEFAULT_TYPE, ...settings };
  for (const field of SAVED_FIELDS) {
    const value = (ep as Record<string, unknown>)[field];
    if (value !== undefined && value !== null) inputs[field] = value;
  }
  return inputs;
}

/** The base owner token of an endpoint's checked inputs. */
function baseOf(inputs: Record<string, unknown>): string | undefined {
  return baseOfKind(ENDPOINT_KIND, inputs);
}

function goneError(name: string, id: string): Error {
  return new Error(
    `ServerlessEndpoint ${JSON.stringify(name)} (${id}) no longer exists on the platform; run \`pulumi refresh\` ` +
      "to forget it, then `pulumi up` to make a new one",
  );
}

/** Create input: the required fields and every optional one the program gave. */
function createInput(inputs: EndpointInputs): WireEndpointInput {
  const input: Record<string, unknown> = { type: inputs.type };
  for (const field of SAVED_FIELDS) {
    if (inputs[field] !== undefined) input[field] = inputs[field];
  }
  return input as WireEndpointInput;
}

/** The real provider behind `shimProvider("serverless-endpoint")`. */
export class ServerlessEndpointProvider implements pulumi.dynamic.ResourceProvider<EndpointInputs, ServerlessEndpointOutputs> {
  private readonly client: () => Pick<ComputePlatform, "endpoints">;
  private readonly clock: Clock;
  private readonly pollIntervalMs: number;
  private readonly maxPollIntervalMs: number;
  private readonly signal?: AbortSignal;
  private readonly pollers = new WeakMap<object, PodPoller<PolledEndpoint>>();
  private readonly ownerLists = new WeakMap<object, SharedList<WireEndpoint>>();
  /** What `diff` saw: the endpoint each resource's replacement replaces (naming.ts). */
  private readonly predecessors = new Predecessors();
  /** Endpoints this process's creates handed to the engine: in its state, never an earlier try. */
  private readonly handedOver = new Set<string>();

  constructor(options: ServerlessEndpointProviderOptions = {}) {
    this.client = options.client ?? platform;
    this.clock = options.clock ?? systemClock;
    // Inside the plugin no options reach the provider: the same env knob as the pod poller.
    const fromEnv = pollFromEnv(process.env);
    this.pollIntervalMs = Math.max(1, options.pollIntervalMs ?? fromEnv.intervalMs ?? 1000);
    this.maxPollIntervalMs = Math.max(this.pollIntervalMs, options.maxPollIntervalMs ?? fromEnv.maxIntervalMs ?? 15_000);
    this.signal = options.signal;
  }

  async check(olds: any, news: any): Promise<pulumi.dynamic.CheckResult<EndpointInputs>> {
    return checkEndpointInputs(olds, news, (base) => this.predecessors.get(base)) as pulumi.dynamic.CheckResult<EndpointInputs>;
  }

  async diff(id: string, olds: ServerlessEndpointOutputs, news: EndpointInputs): Promise<pulumi.dynamic.DiffResult> {
    // If the engine replaces this endpoint, its second check and the create follow in this
    // process: they derive the new token (and auto-name) from it.
    this.predecessors.record(baseOf(news), id);
    return planEndpointDiff(olds, news);
  }

  /**
   * An auto-named endpoint (its name comes from the owner token, so it says which stack's
   * resource made it): the endpoints that already carry the name are earlier tries of this
   * create whose answer was lost, taken over when this is a replacement diffed in this
   * process, else deleted once the new one exists (naming.ts says why). A name the user gave
   * may be another stack's: nothing is looked for.
   */
  async create(inputs: EndpointInputs): Promise<pulumi.dynamic.CreateResult<ServerlessEndpointOutputs>> {
    const settings = localSettings(inputs);
    const token = inputs[OWNER_TOKEN_KEY];
    const old = this.predecessors.get(baseOf(inputs));
    if (!isOwnerNamed(inputs)) {
      // A name the user gave says nothing about whose an endpoint is: no look-up (a create
      // refused at once costs one request); only the endpoint being replaced is kept from
      // passing for the new one after an ambiguous create.
      try {
        const r = await this.createNew(inputs, settings, new Set(old ? [old] : []));
        this.handedOver.add(r.id);
        return r;
      } catch (err) {
        if (err instanceof EndpointNotReadyError) this.handedOver.add(err.id);
        throw err;
      }
    }
    const key = token!;
    const list = this.ownerList();
    try {
      const named = await this.sameNamed(list, key, inputs.name);
      // None of them can be the endpoint this create makes; those this process handed to the
      // engine are in its state, so they are no earlier try either.
      const excluded = new Set(named.map((e) => e.id));
      if (old) excluded.add(old);
      const earlier = named.filter((e) => !this.handedOver.has(e.id));
      const replacing = token !== baseOf(inputs);
      const fit = replacing ? earlier.filter((e) => (e.type ?? inputs.type) === inputs.type).at(-1) : undefined;
      let result: pulumi.dynamic.CreateResult<ServerlessEndpointOutputs> | undefined;
      let failure: unknown;
      try {
        result = fit
          ? { id: fit.id, ...(await this.update(fit.id, endpointOutputs(fit, settings, inputs.type), inputs)) }
          : await this.createNew(inputs, settings, excluded);
      } catch (err) {
        failure = err;
      }
      const made = result?.id ?? (failure instanceof EndpointNotReadyError ? failure.id : undefined);
      // Nothing made: leave the earlier ones for the next try, which finds them again.
      if (made === undefined) throw failure;
      this.handedOver.add(made);
      const left = await this.retire(earlier.filter((e) => e.id !== made), inputs);
      if (failure !== undefined) throw failure;
      if (left) throw new EndpointNotReadyError(made, result!.outs!, [left]);
      return result!;
    } finally {
      list.fence(key);
    }
  }

  /** Endpoints named `name` now. A few looks, since a failed one proves nothing; then the create fails, having made nothing. */
  private async sameNamed(list: SharedList<WireEndpoint>, key: string, name: string): Promise<WireEndpoint[]> {
    try {
      const all = await lookAgain(() => list.get(key), { clock: this.clock, signal: this.signal, attempts: AMBIGUOUS_LOOKUPS });
      return all.filter((e) => e.name === name);
    } catch (err) {
      throw new Error(
        `creating endpoint "${name}": nothing was created, because the endpoints already named so could not be listed ` +
          `(${err instanceof Error ? err.message : String(err)}); run the deployment again`,
        { cause: err },
      );
    }
  }

  /** saveEndpoint, then wait for the workers. `excluded`: endpoints that cannot be the one made. */
  private async createNew(
    inputs: EndpointInputs,
    settings: LocalSettings,
    excluded: Set<string>,
  ): Promise<pulumi.dynamic.CreateResult<ServerlessEndpointOutputs>> {
    const input = createInput(inputs);
    let saved: WireEndpoint;
    try {
      saved = await this.client().endpoints.save(input, this.opts());
    } catch (err) {
      if (!(err instanceof AmbiguousRequestError)) throw err;
      saved = await this.findAfterAmbiguous(input, err, excluded);
    }
    // The client's own look-up took an endpoint that was there before (same name): look again without it.
    if (excluded.has(saved.id)) saved = await this.findAfterAmbiguous(input, undefined, excluded);
    const outs = await this.settle(saved, settings, inputs.type);
    return { id: saved.id, outs };
  }

  /**
   * The create's outcome is unknown (`err`), or the client took an older endpoint for it
   * (no `err`). Throwing without an id would leave an endpoint the next `pulumi up`
   * duplicates, so look a few more times; a list that answers without it proves the create
   * did not happen.
   */
  private async findAfterAmbiguous(
    input: WireEndpointInput,
    err: AmbiguousRequestError | undefined,
    excluded: Set<string>,
  ): Promise<WireEndpoint> {
    let lastError: unknown = err;
    for (let attempt = 1; attempt <= AMBIGUOUS_LOOKUPS; attempt++) {
      if (err) await this.clock.sleep(Math.min(5000, 250 * 2 ** attempt), this.signal);
      let endpoints: WireEndpoint[];
      try {
        endpoints = await this.client().endpoints.list(this.opts());
      } catch (e) {
        lastError = e;
        continue;
      }
      const found = endpoints
        .filter(
          (e) =>
            !excluded.has(e.id) &&
            e.name === input.name &&
            e.templateId === input.templateId &&
            (e.type == null || e.type === (input.type ?? DEFAULT_TYPE)),
        )
        .at(-1);
      if (found) return found;
      const why = err ? err.message : "the endpoint found by name existed before this create";
      throw new Error(`creating endpoint "${input.name}" failed and no endpoint was made (${why}); run the deployment again`, {
        cause: err,
      });
    }
    throw new Error(
      `creating endpoint "${input.name}" failed and whether the endpoint exists is unknown (${
        lastError instanceof Error ? lastError.message : String(lastError)
      }). Before running the deployment again, look for an endpoint named "${input.name}" and delete it.`,
      { cause: err },
    );
  }

  /**
   * Delete earlier tries that did not become the resource's endpoint (scaled to zero and
   * drained first, as any delete). Resolves with a message naming what is left, or undefined.
   */
  private async retire(endpoints: WireEndpoint[], inputs: EndpointInputs): Promise<string | undefined> {
    const left: string[] = [];
    for (const ep of endpoints) {
      let last: unknown;
      let done = false;
      for (let attempt = 1; attempt <= RETIRE_ATTEMPTS && !done; attempt++) {
        try {
          await this.delete(ep.id, { name: ep.name, type: ep.type ?? inputs.type, drainTimeoutSeconds: inputs.drainTimeoutSeconds });
          done = true;
        } catch (e) {
          last = e;
        }
      }
      if (!done) left.push(`${ep.id} ("${ep.name}"): ${last instanceof Error ? last.message : String(last)}`);
    }
    if (left.length === 0) return undefined;
    return `the endpoint was made, but an earlier try of this create could not be deleted: ${left.join("; ")}. Delete it by hand: no stack knows it.`;
  }

  /** The list the look-ups before a create share: one `myself` for a stack's endpoints. */
  private ownerList(): SharedList<WireEndpoint> {
    const client = this.client();
    let l = this.ownerLists.get(client);
    if (!l) {
      l = new SharedList<WireEndpoint>(() => client.endpoints.list(this.opts()), this.clock);
      this.ownerLists.set(client, l);
    }
    return l;
  }

  async read(id: string, props?: Partial<ServerlessEndpointOutputs>): Promise<pulumi.dynamic.ReadResult<ServerlessEndpointOutputs>> {
    const ep = await this.find(id);
    // An empty result tells the engine the endpoint is gone.
    if (!ep) return {};
    const settings = localSettings(props);
    return {
      id: ep.id,
      props: endpointOutputs(ep, settings, props?.type),
      inputs: inputsFromLive(ep, settings) as unknown as ServerlessEndpointOutputs,
    };
  }

  async update(
    id: string,
    olds: ServerlessEndpointOutputs,
    news: EndpointInputs,
  ): Promise<pulumi.dynamic.UpdateResult<ServerlessEndpointOutputs>> {
    const settings = localSettings(news);
    const changed = changedSavedFields(olds, news);
    let ep: WireEndpoint;
    if (changed.length > 0) {
      const input: Record<string, unknown> = {
        id,
        name: news.name,
        gpuIds: news.gpuIds,
        templateId: news.templateId,
        type: olds.type ?? news.type,
      };
      for (const field of changed) input[field] = news[field];
      try {
        ep = await this.client().endpoints.save(input as WireEndpointInput, this.opts());
      } catch (err) {
        if (err instanceof NotFoundError) throw goneError(olds.name, id);
        throw err;
      }
    } else {
      const found = await this.find(id);
      if (!found) throw goneError(olds.name, id);
      ep = found;
    }
    // Also when nothing changed: an `up` after a failed readiness wait comes here to wait again.
    return { outs: await this.settle(ep, settings, olds.type) };
  }

  async delete(id: string, props: Partial<ServerlessEndpointOutputs>): Promise<void> {
    this.predecessors.forget(id);
    const boundMs = 1000 * (props?.drainTimeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_SECONDS);
    const deadline = this.clock.now() + boundMs;
    let backoffMs = this.pollIntervalMs;
    for (let attempt = 1; attempt <= MAX_POLLS; attempt++) {
      const drained = await this.scaleToZeroAndDrain(id, props?.type, deadline);
      if (drained === "gone") return;
      if (drained !== "drained") {
        throw new Error(
          `ServerlessEndpoint ${props?.name ?? id}: ${drained.pods.length} worker(s) still listed ` +
            `${boundMs / 1000} s after scaling to zero; the endpoint stays in state at 0 workers, ` +
            "the next `pulumi destroy` (or `pulumi up`, after a replace) finishes it; or raise drainTimeoutSeconds",
        );
      }
      try {
        await this.client().endpoints.delete(id, this.opts());
        return;
      } catch (err) {
        if (err instanceof NotFoundError) return;
        // Refused: its workers were raised again between our scale-down and the delete.
        if (!(err instanceof ConflictError) || this.clock.now() >= deadline) throw err;
      }
      await this.clock.sleep(Math.min(backoffMs, Math.max(0, deadline - this.clock.now())), this.signal);
      backoffMs = Math.min(backoffMs * 2, this.maxPollIntervalMs);
    }
    throw new Error(`ServerlessEndpoint ${props?.name ?? id}: delete refused ${MAX_POLLS} times`);
  }

  /**
   * Save 0/0 unless the endpoint is already there, then wait until no worker is listed.
   * Returns the endpoint as last read when the deadline passes first.
   */
  private async scaleToZeroAndDrain(id: string, knownType: string | undefined, deadline: number): Promise<"gone" | "drained" | WireEndpoint> {
    // From the shared poller's next list: a stack's endpoints deleted together share one read.
    const ep = await this.pollUntil(id, () => true, deadline);
    if (!ep) return "gone";
    if (ep.workersMin !== 0 || ep.workersMax !== 0) {
      try {
        await this.client().endpoints.save({
          id,
          name: ep.name,
          gpuIds: ep.gpuIds,
          templateId: ep.templateId,
          type: ep.type ?? knownType ?? DEFAULT_TYPE,
          workersMin: 0,
          workersMax: 0,
        } as WireEndpointInput,
        this.opts(),
        );
      } catch (err) {
        if (err instanceof NotFoundError) return "gone";
        throw err;
      }
    }
    const last = await this.pollUntil(id, (e) => (e.pods ?? []).length === 0, deadline, ep);
    if (last === undefined) return "gone";
    return (last.pods ?? []).length === 0 ? "drained" : last;
  }

  /**
   * After a save: the outputs, once `workersMin` workers are RUNNING (unless the program
   * turned the wait off). A failed wait becomes an {@link EndpointNotReadyError} with the id.
   */
  private async settle(saved: WireEndpoint, settings: LocalSettings, fallbackType: string | undefined): Promise<ServerlessEndpointOutputs> {
    let latest = saved;
    const outs = () => endpointOutputs(latest, settings, fallbackType);
    if (!settings.waitForWorkers) return outs();
    const deadline = this.clock.now() + 1000 * settings.readyTimeoutSeconds;
    try {
      const found = await this.pollUntil(saved.id, (e) => runningWorkers(e) >= (e.workersMin ?? 0), deadline, saved);
      if (found === undefined) {
        throw new EndpointNotReadyError(saved.id, outs(), [`endpoint ${saved.id} disappeared while waiting for its workers`]);
      }
      latest = found;
    } catch (err) {
      if (err instanceof EndpointNotReadyError) throw err;
      const reason = err instanceof Error ? err.message : String(err);
      throw new EndpointNotReadyError(saved.id, outs(), [`waiting for the workers of endpoint ${saved.id} failed: ${reason}`]);
    }
    const want = latest.workersMin ?? 0;
    if (runningWorkers(latest) < want) {
      throw new EndpointNotReadyError(saved.id, outs(), [
        `endpoint ${saved.id} has ${runningWorkers(latest)} of ${want} workers RUNNING after ` +
          `${settings.readyTimeoutSeconds} s; it is kept in state and the next \`pulumi up\` waits ` +
          "again (raise readyTimeoutSeconds, or set waitForWorkers: false)",
      ]);
    }
    return outs();
  }

  /**
   * Read the endpoint until `done` holds or the deadline passes, pausing longer each time,
   * through the client's shared poller: one `myself` per tick answers every endpoint this
   * process waits on (a stack of twenty endpoints would otherwise send twenty). `seen`, the
   * endpoint as just read or saved, may already be done. Returns the last read, or undefined
   * when the endpoint is gone.
   */
  private async pollUntil(
    id: string,
    done: (ep: WireEndpoint) => boolean,
    deadline: number,
    seen?: WireEndpoint,
  ): Promise<WireEndpoint | undefined> {
    if (seen && done(seen)) return seen;
    try {
      return await this.poller().wait(id, {
        description: "ready",
        timeoutMs: Math.max(0, deadline - this.clock.now()),
        signal: this.signal,
        until: (e) => (e === undefined || done(e) ? "done" : "pending"),
      });
    } catch (err) {
      // Out of time: the caller decides from the endpoint as last read.
      if (err instanceof PodWaitTimeoutError) return (err.last as PolledEndpoint | undefined) ?? (await this.find(id));
      throw err;
    }
  }

  /** The one poller of the current client. */
  private poller(): PodPoller<PolledEndpoint> {
    const client = this.client();
    let p = this.pollers.get(client);
    if (!p) {
      // Through the owner look-ups' shared list: a create's look-up can reuse a wait's read.
      const lists = this.ownerList();
      const list = async () => (await lists.fresh()).map((e) => ({ ...e, status: "PROVISIONING" as const }));
      p = new PodPoller<PolledEndpoint>(list, this.clock, {
        intervalMs: this.pollIntervalMs,
        maxIntervalMs: this.maxPollIntervalMs,
        backoff: 1.5,
      });
      this.pollers.set(client, p);
    }
    return p;
  }

  private opts(): { signal?: AbortSignal } {
    return this.signal ? { signal: this.signal } : {};
  }

  /** The endpoint, or undefined when the platform no longer has it. */
  private async find(id: string): Promise<WireEndpoint | undefined> {
    try {
      return (await this.client().endpoints.get(id, this.opts())) ?? undefined;
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }
}

registerProvider("serverless-endpoint", new ServerlessEndpointProvider());

/**
 * A Serverless endpoint of the Compute Platform: autoscaled workers behind one endpoint id.
 * Deleting it scales it to zero and waits for the workers to drain first, as the platform
 * requires.
 */
export class ServerlessEndpoint extends pulumi.dynamic.Resource {
  /** The endpoint's name on the platform. */
  declare readonly name: pulumi.Output<string>;
  /** GPU tier of the workers. */
  declare readonly gpuIds: pulumi.Output<string>;
  /** Serverless template of the workers. */
  declare readonly templateId: pulumi.Output<string>;
  /** `QB` or `LB`. */
  declare readonly type: pulumi.Output<string>;
  /** Seconds before idle workers shut down. */
  declare readonly idleTimeout: pulumi.Output<number | null>;
  /** Region restriction; null for any region. */
  declare readonly locations: pulumi.Output<string | null>;
  /** `OFF` or `FLASHBOOT`. */
  declare readonly flashBootType: pulumi.Output<string | null>;
  /** `QUEUE_DELAY` or `REQUEST_COUNT`. */
  declare readonly scalerType: pulumi.Output<string | null>;
  /** Target value of the scaler. */
  declare readonly scalerValue: pulumi.Output<number | null>;
  /** Minimum workers. */
  declare readonly workersMin: pulumi.Output<number | null>;
  /** Maximum workers. */
  declare readonly workersMax: pulumi.Output<number | null>;
  /** Mounted network volume; null for none. */
  declare readonly networkVolumeId: pulumi.Output<string | null>;
  /** The workers when last read (create, update or refresh). */
  declare readonly pods: pulumi.Output<EndpointWorkerOutput[]>;
  /** Whether create and update wait for `workersMin` RUNNING workers. */
  declare readonly waitForWorkers: pulumi.Output<boolean>;
  /** Seconds create and update wait for the workers. */
  declare readonly readyTimeoutSeconds: pulumi.Output<number>;
  /** Seconds delete may take. */
  declare readonly drainTimeoutSeconds: pulumi.Output<number>;

  constructor(name: string, args: ServerlessEndpointArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      shimProvider("serverless-endpoint"),
      name,
      {
        // Every output must be named here (undefined when the program leaves it out) to
        // appear on the class.
        name: undefined,
        type: undefined,
        idleTimeout: undefined,
        locations: undefined,
        flashBootType: undefined,
        scalerType: undefined,
        scalerValue: undefined,
        workersMin: undefined,
        workersMax: undefined,
        networkVolumeId: undefined,
        pods: undefined,
        waitForWorkers: undefined,
        readyTimeoutSeconds: undefined,
        drainTimeoutSeconds: undefined,
        ...args,
        [LOGICAL_NAME_KEY]: name,
        ...ownerInputs(opts?.parent, {
          organization: pulumi.getOrganization,
          project: pulumi.getProject,
          stack: pulumi.getStack,
        }),
      },
      opts,
      "computeplatform",
      "ServerlessEndpoint",
    );
  }
}

export {
  type ImageModelInput,
  type RunSyncSmokeTestArgs,
  type RunSyncSmokeTestResult,
  runSyncSmokeTest,
} from "./serverless-endpoint-smoke";
