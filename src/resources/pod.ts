/*
 * Pod: lifecycle -> API calls
 *
 *   check   no request. Spec 2.3, 2.4, 4.1 and 8 as failures naming the property; defaults
 *           filled in; the owner token settled (naming.ts); the name settled (user's, else
 *           the old one, else logical name + 7 hex of the token).
 *   diff    no request. pod-plan.ts: compute, cloud, dataCenterIds, mount kind, network
 *           volumeId, persistent size -> replace; the rest -> update in place. Remembers the
 *           id, in case the engine replaces the pod (naming.ts).
 *   create  earlier tries of this create (owner token in env) from the list the poller's
 *           GET /v2/pods shares (one call for a fleet at most): a replacement takes one over
 *           by PATCH, before any POST; otherwise they are DELETEd once this pod exists.
 *           POST /v2/pods (after an ambiguous failure the client looks the pod up by name
 *           before anything else, and the provider a few times more), then the shared poller's GET /v2/pods per tick until
 *           RUNNING (or ports published); desiredStatus EXITED: POST .../action stop;
 *           locked: PATCH {locked: true} last. A pod that ends in ERROR or times out fails
 *           with its id and outputs kept (Pulumi's partial state), so it is never forgotten.
 *           adopt: GET /v2/pods/{adopt}, PATCH the differences: no POST.
 *   read    GET /v2/pods/{id}; 404 or TERMINATED -> gone.
 *   update  PATCH /v2/pods/{id} with the changed fields only (a locked: true comes after
 *           any stop or restart); POST .../action start | stop | restart as desiredStatus and
 *           globalNetworking need; the poller again when the container restarts.
 *   delete  PATCH {locked: false} if this resource locked it; DELETE /v2/pods/{id} (404 is
 *           done); the poller until the pod is no longer listed (TERMINATED).
 *
 * Bringing an existing pod under management: `pulumi import` does not work for dynamic
 * resources (pulumi/pulumi#16175). Declare the pod as it is with `adopt: "<pod id>"`; the
 * first `pulumi up` takes it over (PATCHing what differs) instead of creating one, and from
 * then on the resource owns it, including deletion. For read-only use, `Pod.get(name, id)`.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ComputePlatform } from "../client";
import { type Clock, systemClock } from "../client/core/clock";
import { AmbiguousRequestError, ConflictError, NotFoundError } from "../client/core/errors";
import { isAmbiguous } from "../client/core/transport";
import type { PodCreateParams, PodUpdateParams } from "../client/schemas";
import {
  canonical,
  isReady,
  patchRestarts,
  planPodChange,
  podPatch,
} from "./pod-plan";
import {
  type Cloud,
  checkPod,
  DEFAULT_WAIT_TIMEOUT_SECONDS,
  type DesiredStatus,
  LOGICAL_NAME_KEY,
  type LivePod,
  OWNER_ENV,
  type PodDeclaration,
  type PodInputs,
  type PodOutputs,
  type WaitFor,
} from "./pod-schema";
import { randomBytes } from "node:crypto";
import { baseOf, lookAgain, OWNER_TOKEN_KEY, ownerInputs, Predecessors, SharedList } from "./naming";
import { registerProvider } from "./providers";
import { platform } from "./runtime";
import { shimProvider } from "./shim";
import { PodPoller, type PollerTimings, PodWaitTimeoutError, pollFromEnv } from "./wait";

export {
  checkPod,
  DEFAULT_WAIT_TIMEOUT_SECONDS,
  podArgsSchema,
  type PodInputs,
  type PodOutputs,
} from "./pod-schema";
export { planPodChange, type PodPlan } from "./pod-plan";

/** Arguments of a {@link Pod}: the create fields of spec 4.1 plus what only this resource has. */
export interface PodArgs {
  /**
   * The pod's name on the platform. Changing it renames the pod in place.
   * @default the resource's logical name plus 7 hex characters of its owner token (e.g.
   * `trainer-1a2b3c4`): the same program in two stacks never collides, and a create retried after
   * an interrupted deployment picks the same name
   */
  name?: pulumi.Input<string>;
  /** Container image reference, e.g. `pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime`. Updates in place (restarts the container). */
  image: pulumi.Input<string>;
  /**
   * Arguments passed to the container entrypoint. Updates in place (restarts the container).
   * @default the platform's (no arguments)
   */
  args?: pulumi.Input<string>;
  /**
   * Container disk in GB, at least 1; ephemeral, wiped on restart. Updates in place.
   * @default the platform's (20 GB on the emulator); leaving it out later keeps the current size
   */
  disk?: pulumi.Input<number>;
  /**
   * Exposed ports, each `<port>/<protocol>`, e.g. `["8888/http", "22/tcp"]`. Updates in place;
   * order does not matter.
   * @default the platform's (none); leaving it out later keeps the current ports
   */
  ports?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * Environment variables. Only the keys declared here are managed: keys the platform adds
   * (e.g. `COMPUTEPLATFORM_POD_ID`) and this provider's `COMPUTEPLATFORM_OWNER` (the owner
   * token, see the README's limits) are left alone, never show a diff, and may not be declared.
   * Removing a key removes it from the pod. Updates in place (restarts the container).
   * @default {}
   */
  env?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /**
   * ID of a container registry credential, for private images; `null` for none.
   * @default null
   */
  registry?: pulumi.Input<string | null>;
  /**
   * A GPU pod: GPU type and count. Exactly one of `gpu` or `cpu`. Changing it replaces the pod.
   * Accepts no other properties.
   */
  gpu?: pulumi.Input<{
    /** GPU type identifier (see the catalog's GPU list). */
    id: pulumi.Input<string>;
    /**
     * Number of GPUs, at least 1.
     * @default 1
     */
    count?: pulumi.Input<number>;
  }>;
  /**
   * A CPU pod: flavor and vCPU count. Exactly one of `gpu` or `cpu`. Changing it replaces the
   * pod. Memory follows from the flavor; it is an output (`cpu.memory`), not an input.
   */
  cpu?: pulumi.Input<{
    /** CPU flavor identifier (see the catalog's CPU list). */
    id: pulumi.Input<string>;
    /** vCPUs: at least 2, a power of two, and within the flavor's range. */
    vcpuCount: pulumi.Input<number>;
  }>;
  /**
   * Storage: at most one of `persistent` (host-local, GPU pods only, deprecated) or `network`
   * (one network volume). The kind of mount, a network mount's `volumeId` and a persistent
   * mount's `size` are fixed at creation (changing them replaces the pod); a `path` updates in place.
   * @default no mount
   */
  mounts?: pulumi.Input<{
    /** Host-local storage; data does not survive a host failure. Invalid on CPU pods. */
    persistent?: pulumi.Input<{
      /** Size in GB, at least 10. */
      size: pulumi.Input<number>;
      /** Mount path in the container. */
      path: pulumi.Input<string>;
    }>;
    /** At most one network volume, never `[]`. */
    network?: pulumi.Input<
      pulumi.Input<{
        /** ID of a network volume in the pod's data center. */
        volumeId: pulumi.Input<string>;
        /** Mount path in the container (no default). */
        path: pulumi.Input<string>;
      }>[]
    >;
  }>;
  /**
   * `SECURE` (provider-owned data centers) or `COMMUNITY` (community-hosted). Changing it replaces the pod.
   * @default "SECURE"
   */
  cloud?: pulumi.Input<Cloud>;
  /**
   * Preferred data centers; empty or left out lets the scheduler choose. Changing the set
   * replaces the pod (order does not matter).
   * @default [] (any)
   */
  dataCenterIds?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * A global-network address reachable from your other globally networked pods. Needs an
   * NVIDIA GPU and a data center that supports it. Changing it updates in place and restarts
   * a running pod, since the platform applies it at the next start.
   * @default false
   */
  globalNetworking?: pulumi.Input<boolean>;
  /**
   * When true the pod cannot be stopped or restarted. A pod this resource locked is unlocked
   * before it is deleted.
   * @default false
   */
  locked?: pulumi.Input<boolean>;
  /**
   * `RUNNING`, or `EXITED` to stop the pod without deleting it (cost drops to 0; the container
   * disk is wiped); set it back to `RUNNING` to start it again.
   * @default "RUNNING"
   */
  desiredStatus?: pulumi.Input<DesiredStatus>;
  /**
   * What create and update wait for when the pod should run: `RUNNING` (the container is
   * healthy), or `PORTS` (RUNNING and every port in `ports` published, so it is reachable).
   * @default "RUNNING"
   */
  waitFor?: pulumi.Input<WaitFor>;
  /**
   * How long create, update and delete wait for the pod, in seconds (1 to 86400). Pulumi's
   * `customTimeouts` do not reach dynamic providers; this is the knob. A pod not ready in time
   * stays in the stack (with its ID) and the next `pulumi up` waits for it again.
   * @default 600
   */
  waitTimeoutSeconds?: pulumi.Input<number>;
  /**
   * ID of an existing pod to take under management instead of creating one (the way in,
   * since `pulumi import` does not work for dynamic resources: pulumi/pulumi#16175). Its
   * compute, cloud and mount must match the declaration; the rest is PATCHed to match.
   * Once adopted, the resource owns the pod: `pulumi destroy` terminates it.
   * @default undefined (create a new pod)
   */
  adopt?: pulumi.Input<string>;
}

/** A pod that ended in ERROR while this resource waited for it. */
export class PodFailedError extends Error {
  constructor(
    readonly pod: LivePod,
    message: string,
  ) {
    super(message);
    this.name = "PodFailedError";
  }
}

/**
 * The partial-state error of Pulumi's dynamic provider: the plugin turns an error with
 * `id`, `properties` and `reasons` into ErrorResourceInitFailed, so the engine keeps the
 * pod's ID and outputs in state and the next `pulumi up` retries (or replaces) it.
 */
export class PodInitError extends Error {
  readonly reasons: string[];
  constructor(
    readonly id: string,
    readonly properties: PodOutputs,
    cause: unknown,
  ) {
    const text = cause instanceof Error ? cause.message : String(cause);
    super(`pod ${id} ("${properties.name}"): ${text}`, { cause });
    this.name = "PodInitError";
    this.reasons = [text];
  }
}

/** Dependencies of the provider; tests inject a client, a clock, fast timings and a signal. */
export interface PodProviderOptions {
  /**
   * The client to call.
   * @default the process-wide client of `runtime.ts` (stack config, then environment)
   */
  client?: () => ComputePlatform;
  /**
   * Time source of the waits.
   * @default the system clock
   */
  clock?: Clock;
  /**
   * Pace of the shared poller.
   * @default from `COMPUTEPLATFORM_POLL_INTERVAL_MS`, else { intervalMs: 1500, maxIntervalMs: 10000, backoff: 1.5 }
   */
  poll?: PollerTimings;
  /** Cancels every wait of this provider. */
  signal?: AbortSignal;
}

type LivePoller = PodPoller<LivePod>;

const TERMINAL_GONE = new Set(["TERMINATED"]);
/** Extra look-ups by name after a create whose outcome the client could not settle. */
const AMBIGUOUS_LOOKUPS = 3;
/** Tries of one action when its outcome is unknown. */
const ACTION_ATTEMPTS = 3;
const STOPPED = new Set(["EXITED", "ERROR"]);

/** Drop `undefined` anywhere (Pulumi's Struct marshalling rejects it); keep nulls. */
function structSafe<T>(value: T): T {
  return JSON.parse(JSON.stringify(value));
}

/** The declaration kept in state: which inputs were set, which env keys, the wanted globalNetworking. */
export function declarationFor(inputs: PodInputs): PodDeclaration {
  return {
    keys: Object.keys(inputs)
      .filter((k) => !k.startsWith("__") && k !== "adopt")
      .sort(),
    envKeys: Object.keys(inputs.env ?? {}).sort(),
    globalNetworking: inputs.globalNetworking,
    locked: inputs.locked,
  };
}

/** A Pod's outputs: the live pod (spec 2.2) plus the settings only this resource has. */
export function podOutputs(pod: LivePod, inputs: PodInputs, declaration = declarationFor(inputs)): PodOutputs {
  const out: PodOutputs = {
    id: pod.id,
    name: pod.name,
    status: pod.status,
    actions: [...pod.actions],
    image: pod.image,
    args: pod.args,
    disk: pod.disk,
    mounts: pod.mounts,
    ports: [...pod.ports],
    env: { ...pod.env },
    registry: pod.registry,
    cloud: pod.cloud,
    dataCenterId: pod.dataCenterId,
    template: pod.template,
    cost: pod.cost,
    locked: pod.locked,
    globalNetworking: pod.globalNetworking,
    runtime: pod.runtime,
    createdAt: pod.createdAt,
    startedAt: pod.startedAt,
    desiredStatus: inputs.desiredStatus,
    waitFor: inputs.waitFor,
    waitTimeoutSeconds: inputs.waitTimeoutSeconds,
    __declared: declaration,
  };
  if (pod.gpu) out.gpu = { id: pod.gpu.id, count: pod.gpu.count };
  if (pod.cpu) out.cpu = { id: pod.cpu.id, vcpuCount: pod.cpu.vcpuCount, memory: pod.cpu.memory };
  if (inputs.dataCenterIds && inputs.dataCenterIds.length > 0) out.dataCenterIds = [...inputs.dataCenterIds];
  return structSafe(out);
}

/** The create body of spec 4.1 from checked inputs: only what the user set, nothing of this resource's own. */
export function createBody(inputs: PodInputs): PodCreateParams {
  const body: PodCreateParams = { name: inputs.name, image: inputs.image };
  if (inputs.args !== undefined) body.args = inputs.args;
  if (inputs.disk !== undefined) body.disk = inputs.disk;
  if (inputs.ports !== undefined) body.ports = [...inputs.ports];
  if (inputs.env !== undefined) body.env = { ...inputs.env };
  // Only the declared env keys are ever compared (pod-plan.ts), so this one never shows a diff.
  // The token, then this create's own mark: an earlier try (same token) never passes for it.
  const token = inputs[OWNER_TOKEN_KEY];
  if (token) body.env = { ...body.env, [OWNER_ENV]: `${token}.${randomBytes(4).toString("hex")}` };
  if (inputs.registry !== undefined) body.registry = inputs.registry;
  if (inputs.gpu) body.gpu = { id: inputs.gpu.id, count: inputs.gpu.count };
  if (inputs.cpu) body.cpu = { id: inputs.cpu.id, vcpuCount: inputs.cpu.vcpuCount };
  if (inputs.mounts) body.mounts = structSafe(inputs.mounts);
  body.cloud = inputs.cloud;
  if (inputs.dataCenterIds && inputs.dataCenterIds.length > 0) body.dataCenterIds = [...inputs.dataCenterIds];
  if (inputs.globalNetworking) body.globalNetworking = true;
  return body;
}

/**
 * Whether `pod` is the pod a create of `body` makes: compute, cloud, mount, placement. After
 * an ambiguous create the client adopts the newest pod with the same name, image and
 * compute; during a replace that keeps the name, that can be the very pod being replaced,
 * which differs from the request in exactly what forced the replace.
 */
export function matchesCreate(pod: LivePod, body: PodCreateParams): boolean {
  if (pod.name !== body.name || pod.image !== body.image) return false;
  if (body.gpu && (pod.gpu?.id !== body.gpu.id || pod.gpu.count !== (body.gpu.count ?? 1))) return false;
  if (body.cpu && (pod.cpu?.id !== body.cpu.id || pod.cpu.vcpuCount !== body.cpu.vcpuCount)) return false;
  if ((body.cloud ?? "SECURE") !== pod.cloud) return false;
  if (body.dataCenterIds?.length && pod.dataCenterId !== null && !body.dataCenterIds.includes(pod.dataCenterId)) {
    return false;
  }
  const want = body.mounts ?? {};
  const have = pod.mounts ?? {};
  if (canonical(want.persistent?.size ?? null) !== canonical(have.persistent?.size ?? null)) return false;
  if (canonical(want.network?.[0]?.volumeId ?? null) !== canonical(have.network?.[0]?.volumeId ?? null)) return false;
  return true;
}

/** Whether `pod` was made by a create with owner token `token` (its env holds `<token>.<mark>`). */
export function ownedBy(pod: Pick<LivePod, "env">, token: string): boolean {
  const v = pod.env?.[OWNER_ENV];
  return typeof v === "string" && (v === token || v.startsWith(`${token}.`));
}

/** The real provider behind `shimProvider("pod")`. */
export class PodProvider implements pulumi.dynamic.ResourceProvider<PodInputs, PodOutputs> {
  private readonly client: () => ComputePlatform;
  private readonly clock: Clock;
  private readonly poll: PollerTimings;
  private readonly signal?: AbortSignal;
  private readonly pollers = new WeakMap<ComputePlatform, LivePoller>();
  private readonly ownerLists = new WeakMap<ComputePlatform, SharedList<LivePod>>();
  /** What `diff` saw: the pod each resource's replacement replaces (naming.ts). */
  private readonly predecessors = new Predecessors();
  /** Pods this process's creates handed to the engine: in its state, never an earlier try. */
  private readonly handedOver = new Set<string>();
  /** Owner marks of this process's creates still running or handed over: never an earlier try. */
  private readonly marks = new Set<string>();

  constructor(options: PodProviderOptions = {}) {
    this.client = options.client ?? platform;
    this.clock = options.clock ?? systemClock;
    this.poll = options.poll ?? pollFromEnv(process.env);
    this.signal = options.signal;
  }

  /**
   * The one poller of a client: every pod this process waits on shares its list calls, and
   * the owner look-ups read them too.
   */
  poller(client: ComputePlatform = this.client()): LivePoller {
    let p = this.pollers.get(client);
    if (!p) {
      const lists = this.ownerList(client);
      p = new PodPoller<LivePod>(() => lists.fresh(), this.clock, this.poll);
      this.pollers.set(client, p);
    }
    return p;
  }

  /** The list the owner look-ups of this client share: one call for a fleet's creates. */
  private ownerList(client: ComputePlatform): SharedList<LivePod> {
    let l = this.ownerLists.get(client);
    if (!l) {
      l = new SharedList<LivePod>(() => client.pods.list({ signal: this.signal }), this.clock);
      this.ownerLists.set(client, l);
    }
    return l;
  }

  async check(olds: any, news: any): Promise<pulumi.dynamic.CheckResult<PodInputs>> {
    return checkPod(olds, news, (base) => this.predecessors.get(base));
  }

  async diff(id: string, olds: PodOutputs, news: PodInputs): Promise<pulumi.dynamic.DiffResult> {
    // If the engine replaces this pod (for a replacing property or replaceOnChanges), its
    // second check and the create follow in this process: they derive the new token from it.
    this.predecessors.record(baseOf("Pod", news as any), id);
    const plan = planPodChange(olds, news);
    if (plan.replaces.length > 0 && typeof news.adopt === "string" && news.adopt === olds.id) {
      // A replacement would adopt this same pod again, and then delete it as the old one.
      throw new Error(
        `Pod ${olds.name}: ${plan.replaces.join(", ")} cannot change on an adopted pod while adopt is set. ` +
          "Remove adopt to let Pulumi create a new pod and delete this one, or change the program back.",
      );
    }
    return {
      changes: plan.replaces.length > 0 || plan.updates.length > 0,
      replaces: plan.replaces,
    };
  }

  async create(inputs: PodInputs): Promise<pulumi.dynamic.CreateResult<PodOutputs>> {
    if (inputs.adopt) return this.adopt(inputs);
    const client = this.client();
    const token = inputs[OWNER_TOKEN_KEY];
    if (!token) return this.createNew(client, inputs, new Set());
    const list = this.ownerList(client);
    try {
      // A replacement diffed in this process: a pod with its token is an earlier try of it,
      // known to no state, so it is taken over instead of making another (naming.ts). For a
      // new resource nothing is taken over, so the look-up waits until the pod exists (a
      // create refused at once costs one request, as before).
      const replacing = token !== baseOf("Pod", inputs as any);
      let earlier: LivePod[] | undefined;
      if (replacing) {
        try {
          earlier = await this.earlierTries(list, token);
        } catch (err) {
          throw new Error(
            `creating pod "${inputs.name}": nothing was created, because looking for an earlier try of this replacement ` +
              `failed (${err instanceof Error ? err.message : String(err)}); run the deployment again`,
            { cause: err },
          );
        }
      }
      const fit = earlier && newestOf(earlier.filter((p) => this.fits(p, inputs)));
      // Lists sent from here on were sent after this create's POST.
      const beforePost = list.calls;
      let result: pulumi.dynamic.CreateResult<PodOutputs> | undefined;
      let failure: unknown;
      try {
        result = fit ? await this.takeOver(client, fit, inputs) : await this.createNew(client, inputs, new Set());
      } catch (err) {
        failure = err;
      }
      const made = result?.id ?? (failure instanceof PodInitError ? failure.id : undefined);
      // No pod made: the earlier tries stay for the next try, which finds them again.
      if (made === undefined) throw failure;
      this.handedOver.add(made);
      let left: Error | undefined;
      try {
        const others = (earlier ?? (await this.earlierTries(list, token, beforePost))).filter((p) => p.id !== made);
        left = await this.retire(client, others);
      } catch (err) {
        left = new Error(
          `the pod was made, but looking for earlier tries of this create (left by an interrupted deployment) failed: ${
            err instanceof Error ? err.message : String(err)
          }. Look for pods whose env ${OWNER_ENV} starts with ${token} other than this one, and delete them.`,
        );
      }
      if (failure !== undefined) throw failure;
      if (left) throw new PodInitError(made, result!.outs!, left);
      return result!;
    } finally {
      list.fence(token);
    }
  }

  /** Live pods an earlier create with `token` made. A few looks, since a failed one proves nothing. */
  private async earlierTries(list: SharedList<LivePod>, token: string, afterList?: number): Promise<LivePod[]> {
    // After a create, the wait's own last list (sent after the POST) answers; a failed look
    // asks for a fresh one.
    let first = afterList !== undefined;
    const look = () => {
      const items = first ? list.since(afterList!) : list.get(token);
      first = false;
      return items;
    };
    const pods = await lookAgain(look, { clock: this.clock, signal: this.signal, attempts: AMBIGUOUS_LOOKUPS });
    return pods.filter(
      (p) =>
        ownedBy(p, token) &&
        !TERMINAL_GONE.has(p.status) &&
        !this.handedOver.has(p.id) &&
        !this.marks.has(p.env[OWNER_ENV]!),
    );
  }

  /** POST the pod, then wait for it. `excluded`: pods that exist already, so cannot be the one made. */
  private async createNew(
    client: ComputePlatform,
    inputs: PodInputs,
    excluded: Set<string>,
  ): Promise<pulumi.dynamic.CreateResult<PodOutputs>> {
    const body = createBody(inputs);
    const mark = body.env?.[OWNER_ENV];
    if (mark) this.marks.add(mark);
    let pod: LivePod;
    try {
      try {
        pod = await client.pods.create(body, { signal: this.signal });
      } catch (err) {
        if (!(err instanceof AmbiguousRequestError)) throw err;
        pod = await this.findAfterAmbiguous(client, body, err, excluded);
      }
      if (excluded.has(pod.id) || !this.isOurs(pod, body)) pod = await this.ownPodAfterMismatch(client, body, pod, excluded);
    } catch (err) {
      // Given up without an id: a pod it may have made is an earlier try for the next create.
      if (mark) this.marks.delete(mark);
      throw err;
    }
    let last = pod;
    try {
      last = await this.converge(client, pod, inputs, { restart: false });
      if (inputs.locked && !last.locked) last = await client.pods.update(pod.id, { locked: true }, { signal: this.signal });
      return { id: pod.id, outs: podOutputs(last, inputs) };
    } catch (err) {
      throw new PodInitError(pod.id, podOutputs(lastSeen(err, last), inputs), err);
    }
  }

  /** What a create of `body` makes: the same fixed fields and, when it has one, the same owner mark. */
  private isOurs(pod: LivePod, body: PodCreateParams): boolean {
    const mark = body.env?.[OWNER_ENV];
    return matchesCreate(pod, body) && (mark === undefined || pod.env?.[OWNER_ENV] === mark);
  }

  /** Whether an existing pod can become this declaration by PATCHing (compute, cloud, mount and place fit). */
  private fits(pod: LivePod, inputs: PodInputs): boolean {
    if (inputs.dataCenterIds?.length && pod.dataCenterId && !inputs.dataCenterIds.includes(pod.dataCenterId)) return false;
    return planPodChange(this.baselineOf(pod, inputs), inputs).replaces.length === 0;
  }

  /** The pod as if this resource had made it, wanting nothing beyond its live values. */
  private baselineOf(pod: LivePod, inputs: PodInputs): PodOutputs {
    return podOutputs(
      pod,
      { ...inputs, desiredStatus: STOPPED.has(pod.status) ? "EXITED" : "RUNNING" },
      { keys: declarationFor(inputs).keys, envKeys: [], globalNetworking: pod.globalNetworking.enabled },
    );
  }

  /** An earlier try of this replacement: PATCH what differs and wait, as an update would. */
  private async takeOver(client: ComputePlatform, pod: LivePod, inputs: PodInputs): Promise<pulumi.dynamic.CreateResult<PodOutputs>> {
    return { id: pod.id, outs: await this.apply(client, pod.id, this.baselineOf(pod, inputs), inputs) };
  }

  /**
   * Terminate earlier tries that did not become the resource's pod (a crash's leftovers, or
   * the pod a forced replace replaces, which the engine deletes next anyway). Resolves with
   * an error naming what is left, or undefined.
   */
  private async retire(client: ComputePlatform, pods: LivePod[]): Promise<Error | undefined> {
    const left: string[] = [];
    for (const pod of pods) {
      let done = false;
      let last: unknown;
      for (let attempt = 1; attempt <= ACTION_ATTEMPTS && !done; attempt++) {
        try {
          if (pod.locked) await client.pods.update(pod.id, { locked: false }, { signal: this.signal });
          await client.pods.delete(pod.id, { signal: this.signal });
          done = true;
        } catch (err) {
          last = err;
          if (err instanceof NotFoundError) done = true;
          // Terminated meanwhile (the engine's own delete of a replaced pod, or a lost answer).
          if (err instanceof ConflictError) {
            done = await client.pods.get(pod.id, { signal: this.signal }).then(
              (p) => p.status === "TERMINATED",
              (e: unknown) => e instanceof NotFoundError,
            );
          }
        }
      }
      if (!done) left.push(`${pod.id} ("${pod.name}"): ${last instanceof Error ? last.message : String(last)}`);
    }
    if (left.length === 0) return undefined;
    return new Error(
      `the pod was made, but an earlier try of this create could not be terminated: ${left.join("; ")}. ` +
        "Delete it by hand: no stack knows it.",
    );
  }

  /**
   * The create's outcome is unknown and the client's own look-up failed too. Throwing now
   * would leave a pod the next `pulumi up` duplicates, so look a few more times; a list that
   * answers without the pod proves the create did not happen.
   */
  private async findAfterAmbiguous(
    client: ComputePlatform,
    body: PodCreateParams,
    err: AmbiguousRequestError,
    excluded: Set<string>,
  ): Promise<LivePod> {
    let lastError: unknown = err;
    for (let attempt = 1; attempt <= AMBIGUOUS_LOOKUPS; attempt++) {
      await this.clock.sleep(Math.min(5000, 250 * 2 ** attempt), this.signal);
      let pods: LivePod[];
      try {
        pods = await client.pods.list({ signal: this.signal });
      } catch (e) {
        lastError = e;
        continue;
      }
      const found = newestOf(pods.filter((p) => !excluded.has(p.id) && this.isOurs(p, body)));
      if (found) return found;
      throw new Error(`creating pod "${body.name}" failed and no pod was made (${err.message}); run the deployment again`, {
        cause: err,
      });
    }
    throw new Error(
      `creating pod "${body.name}" failed and whether the pod exists is unknown (${
        lastError instanceof Error ? lastError.message : String(lastError)
      }). Before running the deployment again, look for a pod named "${body.name}" and delete it or declare it with adopt.`,
      { cause: err },
    );
  }

  /**
   * The client's look-up after an ambiguous create found a pod that is not the one asked
   * for (the pod being replaced, with the same name). Look again, excluding it: found, that
   * is ours; not found, the create did not happen, and saying so is safe.
   */
  private async ownPodAfterMismatch(
    client: ComputePlatform,
    body: PodCreateParams,
    wrong: LivePod,
    excluded: Set<string>,
  ): Promise<LivePod> {
    const pods = await client.pods.list({ signal: this.signal });
    const ours = newestOf(pods.filter((p) => p.id !== wrong.id && !excluded.has(p.id) && this.isOurs(p, body)));
    if (ours) return ours;
    throw new Error(
      `creating pod "${body.name}" failed (the connection dropped) and no new pod was made; the pod ` +
        `${wrong.id} with the same name is another one. Run the deployment again.`,
    );
  }

  /** Take an existing pod under management: GET, check what cannot change, PATCH the rest. */
  private async adopt(inputs: PodInputs): Promise<pulumi.dynamic.CreateResult<PodOutputs>> {
    const client = this.client();
    const id = inputs.adopt!;
    let pod: LivePod;
    try {
      pod = await client.pods.get(id, { signal: this.signal });
    } catch (err) {
      if (err instanceof NotFoundError) throw new Error(`adopt: there is no pod with ID ${id}`);
      throw err;
    }
    if (TERMINAL_GONE.has(pod.status)) throw new Error(`adopt: pod ${id} is TERMINATED and cannot be adopted`);
    if (inputs.dataCenterIds?.length && pod.dataCenterId && !inputs.dataCenterIds.includes(pod.dataCenterId)) {
      throw new Error(
        `adopt: pod ${id} runs in data center ${pod.dataCenterId}, which is not among dataCenterIds (${inputs.dataCenterIds.join(", ")})`,
      );
    }
    const baseline = this.baselineOf(pod, inputs);
    const plan = planPodChange(baseline, inputs);
    if (plan.replaces.length > 0) {
      throw new Error(
        `adopt: pod ${id} differs from the declaration in ${plan.replaces.join(", ")}, which cannot change on an ` +
          `existing pod; declare them as the pod has them (${describeFixed(pod)})`,
      );
    }
    const result = await this.apply(client, id, baseline, inputs);
    return { id, outs: result };
  }

  async read(id: string, props?: Partial<PodOutputs>): Promise<pulumi.dynamic.ReadResult<PodOutputs>> {
    let pod: LivePod;
    try {
      pod = await this.client().pods.get(id, { signal: this.signal });
    } catch (err) {
      // An empty ID tells the engine the pod is gone.
      if (err instanceof NotFoundError) return { id: "" };
      throw err;
    }
    if (TERMINAL_GONE.has(pod.status)) return { id: "" };
    const known = props?.desiredStatus !== undefined;
    const settings = {
      desiredStatus: known ? props!.desiredStatus! : STOPPED.has(pod.status) ? "EXITED" : "RUNNING",
      waitFor: props?.waitFor ?? "RUNNING",
      waitTimeoutSeconds: props?.waitTimeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_SECONDS,
      dataCenterIds: props?.dataCenterIds,
    } as PodInputs;
    const declaration: PodDeclaration = props?.__declared ?? {
      keys: [],
      envKeys: [],
      globalNetworking: pod.globalNetworking.enabled,
    };
    // globalNetworking is applied at the next start, so only a running pod tells whether the
    // address matches what was asked for.
    const observed: PodDeclaration =
      pod.status === "RUNNING" ? { ...declaration, globalNetworking: pod.globalNetworking.enabled } : declaration;
    const outs = podOutputs(pod, settings, observed);
    return { id: pod.id, props: outs, inputs: inputsFromState(outs, props) as unknown as PodOutputs };
  }

  async update(id: string, olds: PodOutputs, news: PodInputs): Promise<pulumi.dynamic.UpdateResult<PodOutputs>> {
    return { outs: await this.apply(this.client(), id, olds, news) };
  }

  /**
   * Bring pod `id` from `olds` (outputs) to `news`: one PATCH of the changed fields, the
   * actions desiredStatus and globalNetworking need, a wait when the container restarts.
   * Any failure keeps the pod's ID and its last known outputs.
   */
  private async apply(client: ComputePlatform, id: string, olds: PodOutputs, news: PodInputs): Promise<PodOutputs> {
    const plan = planPodChange(olds, news);
    if (plan.replaces.length > 0) {
      // The engine replaces on a plan with replaces; a PATCH here would be answered 400.
      throw new Error(`pod ${id}: ${plan.replaces.join(", ")} cannot change in place; the pod must be replaced`);
    }
    const patch = podPatch(olds, news);
    const gnChanged = patch.globalNetworking !== undefined;
    const needsStop = news.desiredStatus === "EXITED" && !STOPPED.has(olds.status);
    const needsRestart = gnChanged && !patchRestarts(patch) && news.desiredStatus === "RUNNING";
    const stayLocked = news.locked && olds.locked && patch.locked === undefined;
    if (stayLocked && (needsStop || (needsRestart && olds.status === "RUNNING"))) {
      throw new Error(
        `pod ${id} is locked, so it cannot be ${needsStop ? "stopped" : "restarted (globalNetworking applies at the next start)"}; ` +
          "set locked: false in the same change, or leave desiredStatus and globalNetworking as they are",
      );
    }
    // Locking waits until after a stop or restart: the platform refuses those on a locked pod.
    const lockLast = patch.locked === true && (needsStop || needsRestart);
    const first: PodUpdateParams = { ...patch };
    if (lockLast) delete first.locked;

    let last: LivePod | undefined;
    try {
      last =
        Object.keys(first).length > 0
          ? await client.pods.update(id, first, { signal: this.signal })
          : await client.pods.get(id, { signal: this.signal });
      last = await this.converge(client, last, news, { restart: needsRestart });
      if (lockLast) last = await client.pods.update(id, { locked: true }, { signal: this.signal });
      return podOutputs(last, news);
    } catch (err) {
      const seen = lastSeen(err, last);
      const outs = seen ? podOutputs(seen, news) : { ...olds, __declared: declarationFor(news) };
      throw new PodInitError(id, structSafe(outs), err);
    }
  }

  /**
   * From where the pod is to where `desiredStatus` wants it: start, stop or restart as
   * needed, then wait on the shared poller. Resolves with the pod as last seen.
   */
  private async converge(
    client: ComputePlatform,
    pod: LivePod,
    inputs: PodInputs,
    opts: { restart: boolean },
  ): Promise<LivePod> {
    const timeoutMs = 1000 * inputs.waitTimeoutSeconds;
    const deadline = this.clock.now() + timeoutMs;
    const left = () => Math.max(0, deadline - this.clock.now());
    let cur = pod;
    if (inputs.desiredStatus === "RUNNING") {
      if (opts.restart && cur.status === "RUNNING") cur = await this.act(client, cur, "restart");
      if (STOPPED.has(cur.status)) cur = await this.act(client, cur, "start");
      if (!isReady(cur, inputs.waitFor)) {
        cur = await this.waitReady(client, cur.id, inputs.waitFor, left());
      }
      return cur;
    }
    if (STOPPED.has(cur.status)) return cur;
    if (!cur.actions.includes("stop")) {
      // PROVISIONING cannot be stopped: wait until the container exists.
      cur = await this.waitUntil(client, cur.id, "stoppable", left(), (p) => p.actions.includes("stop") || STOPPED.has(p.status));
      if (STOPPED.has(cur.status)) return cur;
    }
    cur = await this.act(client, cur, "stop");
    if (cur.status !== "EXITED") cur = await this.waitUntil(client, cur.id, "EXITED", left(), (p) => p.status === "EXITED");
    return cur;
  }

  /**
   * Run an action once. The client does not retry actions (they are not idempotent), so
   * after a failure whose outcome is unknown (connection dropped, 5xx) or a 409 (perhaps
   * because the first try did take effect) read the pod: if the action shows, it is done;
   * otherwise try again, a bounded number of times.
   */
  private async act(client: ComputePlatform, pod: LivePod, action: "start" | "stop" | "restart"): Promise<LivePod> {
    const tookEffect = (p: LivePod) =>
      action === "stop"
        ? p.status === "EXITED"
        : action === "start"
          ? !STOPPED.has(p.status)
          : p.status === "STARTING" || (p.startedAt !== pod.startedAt && p.status !== "ERROR");
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await client.pods.action(pod.id, action, { signal: this.signal });
        return result ?? (await client.pods.get(pod.id, { signal: this.signal }));
      } catch (err) {
        if (!(isAmbiguous(err) || err instanceof ConflictError) || attempt >= ACTION_ATTEMPTS) throw err;
        const now = await client.pods.get(pod.id, { signal: this.signal });
        if (tookEffect(now)) return now;
        if (err instanceof ConflictError && !now.actions.includes(action)) throw err;
      }
    }
  }

  private waitReady(client: ComputePlatform, id: string, waitFor: WaitFor, timeoutMs: number): Promise<LivePod> {
    const what = waitFor === "PORTS" ? "RUNNING with its ports published" : "RUNNING";
    return this.waitUntil(client, id, what, timeoutMs, (p) => {
      if (p.status === "ERROR") {
        return new PodFailedError(p, `pod ${id} went into ERROR instead of ${what}: its container could not become healthy`);
      }
      if (p.status === "EXITED") return new PodFailedError(p, `pod ${id} was stopped (EXITED) while waiting for ${what}`);
      return isReady(p, waitFor);
    });
  }

  private async waitUntil(
    client: ComputePlatform,
    id: string,
    description: string,
    timeoutMs: number,
    ok: (pod: LivePod) => boolean | Error,
  ): Promise<LivePod> {
    const pod = await this.poller(client).wait(id, {
      description,
      timeoutMs,
      signal: this.signal,
      until: (p) => {
        if (!p) return new Error(`pod ${id} was terminated while waiting for ${description}`);
        const verdict = ok(p);
        return verdict === true ? "done" : verdict === false ? "pending" : verdict;
      },
    });
    return pod!;
  }

  async delete(id: string, props: PodOutputs): Promise<void> {
    this.predecessors.forget(id);
    const client = this.client();
    // Unlock only a lock this resource set: someone else's lock is theirs to lift.
    const lockedHere = props?.__declared?.locked === true && props.locked !== false;
    try {
      if (lockedHere) await client.pods.update(id, { locked: false }, { signal: this.signal });
      await client.pods.delete(id, { signal: this.signal });
    } catch (err) {
      if (err instanceof NotFoundError) return;
      if (err instanceof ConflictError) {
        // Terminated already (by an earlier try whose answer was lost, or outside Pulumi): done.
        const now = await client.pods.get(id, { signal: this.signal }).catch((e: unknown) => {
          if (e instanceof NotFoundError) return undefined;
          throw e;
        });
        if (now === undefined || now.status === "TERMINATED") return;
        throw new Error(
          `pod ${id} could not be terminated: ${err.detail || err.message}. If it was locked outside Pulumi, unlock it ` +
            "(or declare locked: true here, so that this resource unlocks it before deleting).",
        );
      }
      throw err;
    }
    const timeoutMs = 1000 * (props?.waitTimeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_SECONDS);
    await this.poller(client).wait(id, {
      description: "TERMINATED",
      timeoutMs,
      signal: this.signal,
      until: (p) => (p === undefined || p.status === "TERMINATED" ? "done" : "pending"),
    });
  }
}

function newestOf(pods: LivePod[]): LivePod | undefined {
  return pods.reduce<LivePod | undefined>((best, p) => (!best || p.createdAt > best.createdAt ? p : best), undefined);
}

/** The pod as last seen when `err` happened: the failed pod, the timed-out one, or `fallback`. */
function lastSeen<T extends LivePod | undefined>(err: unknown, fallback: T): LivePod | T {
  if (err instanceof PodFailedError) return err.pod;
  if (err instanceof PodWaitTimeoutError && err.last) return err.last as LivePod;
  return fallback;
}

function describeFixed(pod: LivePod): string {
  const parts: string[] = [];
  if (pod.gpu) parts.push(`gpu: { id: "${pod.gpu.id}", count: ${pod.gpu.count} }`);
  if (pod.cpu) parts.push(`cpu: { id: "${pod.cpu.id}", vcpuCount: ${pod.cpu.vcpuCount} }`);
  parts.push(`cloud: "${pod.cloud}"`);
  if (pod.mounts?.persistent) parts.push(`mounts.persistent.size: ${pod.mounts.persistent.size}`);
  if (pod.mounts?.network?.[0]) parts.push(`mounts.network[0].volumeId: "${pod.mounts.network[0].volumeId}"`);
  return parts.join(", ");
}

/**
 * The inputs a refresh leaves in state: the declared properties with the values the pod has
 * now (env: only the declared keys), except `name`, which keeps the one last applied, so
 * an auto-named pod renamed outside Pulumi is renamed back rather than adopting the new name.
 */
function inputsFromState(outs: PodOutputs, old: Partial<PodOutputs> | undefined): Record<string, unknown> {
  const keys = new Set(outs.__declared.keys);
  const inputs: Record<string, unknown> = {
    name: old?.name ?? outs.name,
    image: outs.image,
    cloud: outs.cloud,
    globalNetworking: outs.__declared.globalNetworking,
    locked: outs.locked,
    desiredStatus: outs.desiredStatus,
    waitFor: outs.waitFor,
    waitTimeoutSeconds: outs.waitTimeoutSeconds,
  };
  if (outs.gpu) inputs.gpu = { id: outs.gpu.id, count: outs.gpu.count };
  if (outs.cpu) inputs.cpu = { id: outs.cpu.id, vcpuCount: outs.cpu.vcpuCount };
  if (keys.has("args")) inputs.args = outs.args;
  if (keys.has("disk")) inputs.disk = outs.disk;
  if (keys.has("ports")) inputs.ports = outs.ports;
  if (keys.has("registry")) inputs.registry = outs.registry;
  if (keys.has("mounts") && (outs.mounts.persistent || outs.mounts.network)) inputs.mounts = outs.mounts;
  if (outs.dataCenterIds) inputs.dataCenterIds = outs.dataCenterIds;
  const envKeys = outs.__declared.envKeys.filter((k) => k in outs.env);
  if (envKeys.length > 0) inputs.env = Object.fromEntries(envKeys.map((k) => [k, outs.env[k]]));
  return structSafe(inputs);
}

registerProvider("pod", new PodProvider());

/**
 * A Compute Platform pod: a dedicated GPU or CPU container. `pulumi up` returns once the pod
 * is RUNNING (or its ports are published, with `waitFor: "PORTS"`); a pod that fails to
 * start stays in the stack with its ID so the next `up` retries it.
 *
 * For read-only use of a pod made elsewhere: `Pod.get("name", podId)`. To take an existing
 * pod under management, declare it with `adopt: podId` (see {@link PodArgs.adopt}).
 */
export class Pod extends pulumi.dynamic.Resource {
  /** The pod's name on the platform. */
  declare public readonly name: pulumi.Output<string>;
  /** PROVISIONING, STARTING, RUNNING, EXITED, ERROR or TERMINATED, as last read. */
  declare public readonly status: pulumi.Output<PodOutputs["status"]>;
  /** The actions valid in the current status (`start`, `stop`, `restart`, `terminate`). */
  declare public readonly actions: pulumi.Output<PodOutputs["actions"]>;
  /** Container image reference. */
  declare public readonly image: pulumi.Output<string>;
  /** Arguments passed to the container entrypoint. */
  declare public readonly args: pulumi.Output<string>;
  /** Container disk in GB. */
  declare public readonly disk: pulumi.Output<number>;
  /** The pod's mounts (`persistent` or `network`). */
  declare public readonly mounts: pulumi.Output<PodOutputs["mounts"]>;
  /** Exposed ports, `<port>/<protocol>`. */
  declare public readonly ports: pulumi.Output<string[]>;
  /** Environment variables, including those the platform adds. */
  declare public readonly env: pulumi.Output<Record<string, string>>;
  /** Registry credential ID, or null. */
  declare public readonly registry: pulumi.Output<string | null>;
  /** GPU type and count; absent on a CPU pod. */
  declare public readonly gpu: pulumi.Output<PodOutputs["gpu"]>;
  /** CPU flavor, vCPU count and memory (GB); absent on a GPU pod. */
  declare public readonly cpu: pulumi.Output<PodOutputs["cpu"]>;
  /** SECURE or COMMUNITY. */
  declare public readonly cloud: pulumi.Output<Cloud>;
  /** Data center the scheduler placed the pod in. */
  declare public readonly dataCenterId: pulumi.Output<string | null>;
  /** ID of the template the pod was created from, or null. */
  declare public readonly template: pulumi.Output<string | null>;
  /** Current cost in USD per hour; 0 when EXITED. */
  declare public readonly cost: pulumi.Output<number>;
  /** Whether the pod is locked against stop and restart. */
  declare public readonly locked: pulumi.Output<boolean>;
  /** `enabled`, and when enabled the `ip` and `internalDns` of the global network. */
  declare public readonly globalNetworking: pulumi.Output<PodOutputs["globalNetworking"]>;
  /** Live utilization and published ports (`runtime.ports[].public`, `ip`); null unless RUNNING. */
  declare public readonly runtime: pulumi.Output<PodOutputs["runtime"]>;
  /** Creation timestamp. */
  declare public readonly createdAt: pulumi.Output<string>;
  /** Start timestamp; null before the first start. */
  declare public readonly startedAt: pulumi.Output<string | null>;
  /**
   * The status this resource keeps the pod in.
   * @default "RUNNING"
   */
  declare public readonly desiredStatus: pulumi.Output<DesiredStatus>;
  /**
   * What create and update wait for.
   * @default "RUNNING"
   */
  declare public readonly waitFor: pulumi.Output<WaitFor>;
  /**
   * How long waits last, in seconds.
   * @default 600
   */
  declare public readonly waitTimeoutSeconds: pulumi.Output<number>;

  /**
   * Reads an existing pod into the program without managing it: nothing is created, changed
   * or deleted. `id` is the platform's pod ID.
   */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): Pod {
    return new Pod(name, undefined, { ...opts, id });
  }

  constructor(name: string, args: PodArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    const a: Partial<PodArgs> = args ?? {};
    super(
      shimProvider("pod"),
      name,
      {
        name: a.name,
        image: a.image,
        args: a.args,
        disk: a.disk,
        ports: a.ports,
        env: a.env,
        registry: a.registry,
        gpu: a.gpu,
        cpu: a.cpu,
        mounts: a.mounts,
        cloud: a.cloud,
        dataCenterIds: a.dataCenterIds,
        globalNetworking: a.globalNetworking,
        locked: a.locked,
        desiredStatus: a.desiredStatus,
        waitFor: a.waitFor,
        waitTimeoutSeconds: a.waitTimeoutSeconds,
        adopt: a.adopt,
        [LOGICAL_NAME_KEY]: name,
        ...ownerInputs(opts?.parent, {
          organization: pulumi.getOrganization,
          project: pulumi.getProject,
          stack: pulumi.getStack,
        }),
        // Output properties the engine fills in; declared so they are readable on the object.
        status: undefined,
        actions: undefined,
        dataCenterId: undefined,
        template: undefined,
        cost: undefined,
        runtime: undefined,
        createdAt: undefined,
        startedAt: undefined,
      },
      opts,
      "computeplatform",
      "Pod",
    );
  }
}
