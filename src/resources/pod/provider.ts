/*
 * Pod: lifecycle -> API calls
 *
 *   check   no request. The platform's pod rules as failures naming the property (schema.ts);
 *           defaults filled in; the owner token settled (lifecycle/owner.ts); the name settled
 *           (user's, else the old one, else logical name + 7 hex of the token).
 *   diff    no request. plan.ts: compute, cloud, dataCenterIds, mount kind, network
 *           volumeId, persistent size -> replace; the rest -> update in place. Remembers the
 *           id, in case the engine replaces the pod (owner.ts).
 *   create  lifecycle/recovery.ts: earlier tries of this create (owner token in env) from the
 *           list the poller's GET /v2/pods shares (one call for a fleet at most): a replacement
 *           takes one over by PATCH, before any POST; otherwise they are DELETEd once this pod
 *           exists. POST /v2/pods (after an ambiguous failure the client looks the pod up by
 *           name, then `findMade` a few times more), then the shared poller's GET /v2/pods per
 *           tick until RUNNING (or ports published); desiredStatus EXITED: POST .../action stop;
 *           locked: PATCH {locked: true} last. A pod that ends in ERROR or times out fails
 *           with its id and outputs kept (Pulumi's partial state), so it is never forgotten.
 *           adopt: GET /v2/pods/{adopt} (at check too: lifecycle/adopt.ts), PATCH the differences: no POST. The create is planned
 *           once (create-plan.ts); the POST and its GPU fallback are placement.ts.
 *   read    alone: GET /v2/pods/{id}. Reads that come together (a refresh): the shared
 *           GET /v2/pods, one for all of them (lifecycle/shared-reads.ts); a pod missing
 *           from it (a terminated pod is left out) is confirmed by its own GET. 404 or
 *           TERMINATED -> gone.
 *   update  PATCH /v2/pods/{id} with the changed fields only (a locked: true comes after
 *           any stop or restart); POST .../action start | stop | restart as desiredStatus and
 *           globalNetworking need (status.ts); the poller again when the container restarts.
 *           The requests are planned once from the verdict (update-plan.ts).
 *   delete  PATCH {locked: false} if this resource locked it; DELETE /v2/pods/{id} (404 is
 *           done); the poller until the pod is no longer listed (TERMINATED).
 */
import type * as pulumi from "@pulumi/pulumi";
import { type ComputePlatform, ConflictError, NotFoundError } from "../../client";
import { holdBudgets } from "../cost/guard";
import { priceBook } from "../cost/prices";
import { platform, type ProviderOptions } from "../engine/settings";
import { baseOf, isPendingName, STACK_MARK_ENV } from "../lifecycle/owner";
import { logNote } from "../lifecycle/adopt";
import { deleteLine, stepLine, stepSubject } from "../lifecycle/step-line";
import { type PollerTimings, pollFromEnv } from "../lifecycle/poller";
import { recordAfterStep } from "../lifecycle/applied";
import { idsOf, listBefore } from "../lifecycle/find-again";
import { createWithRecovery, OwningProvider } from "../lifecycle/recovery";
import { adopt, type Adoptable, checkAdoption, refuseReplaceWhileAdopted, releaseClaim, unfinishedCreate } from "../lifecycle/adopt";
import { adoptTarget } from "../inputs/container";
import { catalogFailures, computeChanged } from "./catalog-check";
import type { PodDeclaration, PodOutputs } from "./outputs";
import { checkPod, DEFAULT_WAIT_TIMEOUT_SECONDS, type LivePod, OWNER_ENV, type PodInputs } from "./schema";
import { type CreatePlan, planCreate, planExisting } from "./create-plan";
import { podUpdateWrite } from "./costed-write";
import { hourlyCostOf, place } from "./placement";
import { declarationOf, type PodPlan, planKnownPodChange, planPodChange } from "./plan";
import { planUpdate, podStepEffects, previewRefusal } from "./update-plan";
import { describeFixed, inputsFromState, newestOf, ownedBy, ownerBaseOf, podOutputs } from "./wire";
import { converge, lastSeen, type PodContext, PodInitError, provisioning, STOPPED } from "./status";

type Created = pulumi.dynamic.CreateResult<PodOutputs>;

/**
 * Dependencies of the provider; tests inject a client, a clock, fast timings and a signal.
 *
 * @group Providers and checks
 */
export interface PodProviderOptions extends ProviderOptions<ComputePlatform> {
  /**
   * Pace of the shared poller.
   * @default from `COMPUTEPLATFORM_POLL_INTERVAL_MS`, else { intervalMs: 1500, maxIntervalMs: 10000, backoff: 1.5 }
   */
  poll?: PollerTimings;
}

/**
 * The real provider behind `shimProvider("pod")`.
 *
 * @group Providers and checks
 */
export class PodProvider extends OwningProvider<ComputePlatform, LivePod> implements pulumi.dynamic.ResourceProvider<PodInputs, PodOutputs> {
  /** Owner marks of this process's creates still running or handed over: never an earlier try. */
  private readonly marks = new Set<string>();
  private readonly print: (line: string) => void;

  constructor(options: PodProviderOptions = {}) {
    super(options, platform, (client, signal, how) => client.pods.list({ signal, ...how }), {
      ...(options.poll ?? pollFromEnv(process.env)),
      noun: "pod",
      slow: provisioning,
    });
    this.print = options.print ?? logNote;
  }

  /**
   * The rules of the inputs (no request), then, for a new or changed compute, the catalog's:
   * read through the deployment's one price book (the read the stack's cost line made), so a
   * preview sends no request per pod.
   */
  async check(olds: any, news: any): Promise<pulumi.dynamic.CheckResult<PodInputs>> {
    const checked = checkPod(olds, news, (base) => this.predecessors.get(base));
    const inputs = checked.inputs as PodInputs;
    const result = await checkAdoption(this.adoptable(this.client()), olds, adoptTarget(inputs), checked);
    if ((result.failures ?? []).length > 0 || !computeChanged(olds, inputs)) return result;
    const lists = await priceBook(this.client).lists(inputs);
    return lists ? { ...result, failures: catalogFailures(inputs, lists.gpus, lists.cpus) } : result;
  }

  async diff(id: string, olds: PodOutputs, news: PodInputs): Promise<pulumi.dynamic.DiffResult> {
    // If the engine replaces this pod (for a replacing property or replaceOnChanges), its
    // second check and the create follow in this process: they derive the new token from it.
    this.predecessors.record(baseOf("Pod", news as any), id);
    const plan = planPodChange(olds, news);
    refuseReplaceWhileAdopted("Pod", olds.name, id, news as unknown as Record<string, unknown>, plan.replaces);
    // What up could not do on a locked pod fails here, at preview, rather than at up.
    const refused = plan.replaces.length === 0 ? previewRefusal(olds, news) : undefined;
    if (refused) throw new Error(`Pod ${olds.name} ${refused}`);
    const line = stepLine(stepSubject("Pod", news, id), plan, podStepEffects(olds, news));
    if (line) this.print(line);
    return { changes: plan.replaces.length > 0 || plan.updates.length > 0, replaces: plan.replaces };
  }

  async create(inputs: PodInputs): Promise<Created> {
    const plan = planCreate(inputs, this.predecessors.get(baseOf("Pod", inputs as any)));
    const client = this.client();
    if (inputs.adopt) return adopt(this.adoptable(client), inputs.adopt, inputs, async ({ id, baseline }) => ({ id, outs: await this.apply(client, id, baseline, inputs) }));
    if (!plan.token) return this.createNew(client, plan);
    return this.createOwned(client, plan, plan.token);
  }

  async read(id: string, props?: Partial<PodOutputs>): Promise<pulumi.dynamic.ReadResult<PodOutputs>> {
    const client = this.client();
    const pod = await this.reads.of(client).read(id, { one: (podId) => this.find(client, podId) });
    // An empty ID tells the engine the pod is gone.
    if (!pod || pod.status === "TERMINATED") return { id: "" };
    const settings = {
      desiredStatus: props?.desiredStatus ?? (STOPPED.has(pod.status) ? "EXITED" : "RUNNING"),
      waitFor: props?.waitFor ?? "RUNNING",
      waitTimeoutSeconds: props?.waitTimeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_SECONDS,
      dataCenterIds: props?.dataCenterIds,
    } as PodInputs;
    const declaration: PodDeclaration = props?.__declared ?? { keys: [], envKeys: [], globalNetworking: pod.globalNetworking.enabled };
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

  async delete(id: string, props: PodOutputs): Promise<void> {
    this.predecessors.forget(id);
    releaseClaim("Pod", id);
    const client = this.client();
    // Unlock only a lock this resource set: someone else's lock is theirs to lift.
    const lockedHere = props?.__declared?.locked === true && props.locked !== false;
    try {
      if (await this.terminate(client, { id, locked: lockedHere })) return;
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      throw new Error(
        `pod ${id} could not be terminated: ${err.detail || err.message}. If it was locked outside Pulumi, unlock it ` +
          "(or declare locked: true here, so that this resource unlocks it before deleting).",
      );
    }
    const timeoutMs = 1000 * (props?.waitTimeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_SECONDS);
    await this.lists.of(client).poller.wait(id, {
      description: "TERMINATED",
      timeoutMs,
      signal: this.signal,
      until: (p) => (p === undefined || p.status === "TERMINATED" ? "done" : "pending"),
    });
    this.print(deleteLine("Pod", id, podStepEffects(props ?? {})));
  }

  // ---- steps ----

  private context(client: ComputePlatform): PodContext {
    return { client, poller: this.lists.of(client).poller, clock: this.clock, signal: this.signal };
  }

  /** Live pods an earlier create with `token` made, among those listed before this one. */
  private earlierTries(pods: LivePod[], token: string): LivePod[] {
    // Only unfinished creates (the pending name): a pod that was handed over is the user's, in a stack or not.
    return pods.filter(
      (p) =>
        ownedBy(p, token) && isPendingName(p.name) && p.status !== "TERMINATED" && !this.handedOver.has(p.id) && !this.marks.has(p.env[OWNER_ENV]!),
    );
  }

  /** A create with an owner token: take an earlier try over, or POST, and retire the rest (lifecycle/recovery.ts). */
  private createOwned(client: ComputePlatform, plan: CreatePlan, token: string): Promise<Created> {
    const { list } = this.lists.of(client);
    return createWithRecovery<LivePod, Created>({
      noun: "pod",
      name: plan.inputs.name,
      token,
      findByHand: `pods whose env ${OWNER_ENV} starts with ${token}`,
      list,
      clock: this.clock,
      signal: this.signal,
      earlierTries: (pods) => this.earlierTries(pods, token),
      // Only a replacement diffed in this process takes an earlier try over (owner.ts).
      fit: (earlier) => (plan.replacement ? newestOf(earlier.filter((p) => planExisting(p, plan).change.replaces.length === 0)) : undefined),
      takeOver: async (pod) => {
        const existing = planExisting(pod, plan);
        return { id: pod.id, outs: await this.apply(client, pod.id, existing.baseline, plan.inputs, existing.change) };
      },
      createNew: (seenBefore) => this.createNew(client, plan, seenBefore),
      keptId: (failure) => (failure instanceof PodInitError ? failure.id : undefined),
      remove: async (pod) => void (await this.terminate(client, pod)),
      partial: (id, result, reason) => new PodInitError(id, result.outs!, new Error(reason)),
      handedOver: this.handedOver,
    });
  }

  /** POST the pod (finding it after an ambiguous answer), then bring it to `desiredStatus`. */
  private async createNew(client: ComputePlatform, plan: CreatePlan, seenBefore?: ReadonlySet<string>): Promise<Created> {
    const { inputs, mark } = plan;
    if (mark) this.marks.add(mark);
    let pod: LivePod;
    try {
      pod = await place(this.context(client), plan, { seenBefore: seenBefore ?? (await this.listedBefore(client, inputs.name)), claimed: this.handedOver });
    } catch (err) {
      // Given up without an id: a pod it may have made is an earlier try for the next create.
      if (mark) this.marks.delete(mark);
      throw err;
    }
    const declaration = { ...plan.declaration, ...(await hourlyCostOf(client, pod)) };
    let last = pod;
    // Last, in one PATCH that restarts nothing: the lock, and the name that says the create finished.
    const finish = (p: LivePod) => ({
      ...(inputs.locked && !p.locked ? { locked: true } : {}),
      ...(p.name !== inputs.name ? { name: inputs.name } : {}),
    });
    try {
      last = await converge(this.context(client), pod, inputs, { restart: false });
      const patch = finish(last);
      if (Object.keys(patch).length > 0) last = await client.pods.update(pod.id, patch, { signal: this.signal });
      return { id: pod.id, outs: podOutputs(last, inputs, declaration) };
    } catch (err) {
      let seen = lastSeen(err, last);
      // The id goes to the engine with this error: the pod is handed over, so it takes its name.
      if (seen.name !== inputs.name) seen = await client.pods.update(pod.id, { name: inputs.name }, { signal: this.signal }).catch(() => seen);
      throw new PodInitError(pod.id, podOutputs(seen, inputs, declaration), err);
    } finally {
      // The wait listed the pod before the lock (and the start): a read must not take that list for now.
      this.reads.of(client).wrote(pod.id);
    }
  }

  /** The ids of the pods there before a create with no owner token (a provider driven directly): the shared list. */
  private async listedBefore(client: ComputePlatform, name: string): Promise<ReadonlySet<string>> {
    return idsOf(await listBefore(this.lists.of(client).list, `create:pod:${name}`, { noun: "pod", name, clock: this.clock, signal: this.signal }));
  }

  /**
   * Unlock if asked, DELETE. True when it was gone already (404, or TERMINATED after a 409). A
   * DELETE that fails after the unlock locks the pod again: state, which keeps it, says locked.
   */
  private async terminate(client: ComputePlatform, pod: { id: string; locked: boolean }): Promise<boolean> {
    let unlocked = false;
    try {
      if (pod.locked) unlocked = !!(await client.pods.update(pod.id, { locked: false }, { signal: this.signal }));
      await client.pods.delete(pod.id, { signal: this.signal });
      return false;
    } catch (err) {
      if (err instanceof NotFoundError) return true;
      // Terminated meanwhile (the engine's own delete of a replaced pod, or a lost answer).
      if (err instanceof ConflictError) {
        // A look that fails tells nothing (null): the refusal stands, and the lock goes back on below.
        const now = await this.find(client, pod.id).catch(() => null);
        if (now === undefined || now?.status === "TERMINATED") return true;
      }
      if (unlocked) await client.pods.update(pod.id, { locked: true }, { signal: this.signal }).catch(() => undefined);
      throw err;
    } finally {
      this.reads.of(client).wrote(pod.id);
    }
  }

  /** The pod, or undefined when the platform no longer has it. */
  private async find(client: ComputePlatform, id: string): Promise<LivePod | undefined> {
    try {
      return await client.pods.get(id, { signal: this.signal });
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  /**
   * How an existing pod becomes this resource's (lifecycle/adopt.ts): compute, cloud, mount and
   * data center fixed; a pod another stack's resource made (its owner mark) or whose create never
   * finished is refused, since that stack may still manage it.
   */
  private adoptable(client: ComputePlatform): Adoptable<LivePod, PodOutputs, PodInputs> {
    return {
      kind: "Pod",
      noun: "pod",
      find: (id) => this.find(client, id),
      baseline: (pod, inputs) => planExisting(pod, planCreate(inputs)).baseline,
      plan: (baseline, inputs) => planKnownPodChange(baseline, inputs),
      fixed: describeFixed,
      wayOut: "remove adopt to create a new pod as declared",
      refuse: (pod, inputs) => {
        if (pod.status === "TERMINATED") return "is TERMINATED and cannot be adopted";
        const owner = ownerBaseOf(pod);
        if (owner !== undefined && owner !== baseOf("Pod", inputs as unknown as Record<string, unknown>)) {
          const stack = pod.env?.[STACK_MARK_ENV];
          return (
            `was made by another Pulumi resource${stack ? ` of stack ${stack}` : ""} (its env ${OWNER_ENV} holds that resource's owner mark), ` +
            "which may still manage it: adopt it in the stack that made it; if it has left that stack (retainOnDelete, pulumi state " +
            `delete), remove ${OWNER_ENV} from its env by hand (its container restarts) and adopt it then`
          );
        }
        return unfinishedCreate(pod.name);
      },
      account: { client, signal: this.signal },
    };
  }

  /**
   * Bring pod `id` from `olds` (outputs) to `news`: one PATCH of the changed fields, the
   * actions desiredStatus and globalNetworking need, a wait when the container restarts.
   * The plan is computed once here (or handed in) and carried into the PATCH.
   * Any failure keeps the pod's ID and its last known outputs.
   */
  private async apply(client: ComputePlatform, id: string, olds: PodOutputs, news: PodInputs, change?: PodPlan): Promise<PodOutputs> {
    const steps = planUpdate(id, olds, news, change);
    // The pod as last read is the pod: nothing the platform holds changes.
    if (steps.recordOnly) return podOutputs(olds as unknown as LivePod, news, steps.declaration);
    await holdBudgets(() => client, podUpdateWrite(id, olds, news));
    let last: LivePod | undefined;
    try {
      last =
        Object.keys(steps.patch).length > 0
          ? await client.pods.update(id, steps.patch, { signal: this.signal })
          : await client.pods.get(id, { signal: this.signal });
      // A pod taken over, adopted, or stored before prices were kept: priced now.
      if (steps.declaration.hourlyCost === undefined) Object.assign(steps.declaration, await hourlyCostOf(client, last));
      const restartedFrom = steps.restarts && !STOPPED.has(olds.status) ? { startedAt: olds.startedAt } : undefined;
      last = await converge(this.context(client), last, news, { restart: steps.restart, restartedFrom });
      if (steps.lockLast) last = await client.pods.update(id, { locked: true }, { signal: this.signal });
      return podOutputs(last, news, steps.declaration);
    } catch (err) {
      // Recorded as applied: nothing, until the platform answered the PATCH; after that, all
      // but a globalNetworking that waits for the restart that failed (lifecycle/applied.ts).
      const confirmed = last === undefined ? "none" : (Object.keys(steps.declaration) as (keyof PodDeclaration)[]).filter((k) => !(steps.restart && k === "globalNetworking"));
      const record = recordAfterStep(olds.__declared, steps.declaration, confirmed) ?? declarationOf(olds, news);
      const seen = lastSeen(err, last);
      // The settings only this resource holds stay as last applied too.
      const kept: PodInputs = {
        ...news,
        desiredStatus: olds.desiredStatus ?? news.desiredStatus,
        waitFor: olds.waitFor ?? news.waitFor,
        waitTimeoutSeconds: olds.waitTimeoutSeconds ?? news.waitTimeoutSeconds,
        dataCenterIds: olds.dataCenterIds,
      };
      throw new PodInitError(id, seen ? podOutputs(seen, kept, record) : { ...olds, __declared: record }, err);
    } finally {
      this.reads.of(client).wrote(id);
    }
  }
}
