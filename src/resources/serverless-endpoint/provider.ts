/*
 * ServerlessEndpoint: one lifecycle over two dialects, GraphQL (graphql.ts) and REST v2
 * (rest.ts), each step the same in both; the API an endpoint is managed through only picks the
 * dialect (`api`, from the program or from state), never a branch here.
 *
 *   check   no request. Allowed values of the endpoint fields, integers >= 0, workersMin <= workersMax;
 *           defaults filled (type QB, wait settings); the owner token and an auto-name from
 *           it (lifecycle/owner.ts), both kept across updates.
 *   diff    no request. type -> replace (the kind is fixed); any other field -> update in
 *           place (the dialect's planner). A field never declared is the platform's choice:
 *           never a diff; one declared and removed goes back to the platform's default.
 *   create  lifecycle/recovery.ts: the dialect's endpoint list, shared by a stack's creates: its
 *           ids are the ids seen before (lifecycle/find-again.ts), and for an auto-named endpoint
 *           the earlier tries of this create a killed plugin left (the pending name
 *           `<auto-name>~creating`) are among them, taken over by a replacement diffed in this
 *           process, else deleted once the new one exists. Then the dialect's create (an
 *           auto-named endpoint under its pending name), after an ambiguous answer only an
 *           endpoint not seen before taken; the wait for workersMin workers (readyTimeoutSeconds;
 *           a failed wait keeps the id: Pulumi records the endpoint and the next `up` waits
 *           again); last, the rename to its own name.
 *   read    the dialect's read; gone -> gone.
 *   update  the dialect's update, then the same wait as create.
 *   delete  one drain loop: read the endpoint, scale it to 0/0 unless it is there already,
 *           delete it. A refused delete (someone scaled it up again) starts over, with backoff,
 *           within drainTimeoutSeconds; a delete that fails otherwise after the scale-down puts
 *           the workers back, so state (which still holds the endpoint) stays true. Gone at any
 *           step is success.
 */
import type * as pulumi from "@pulumi/pulumi";
import { backoffMs, type Clock, type ComputePlatform, ConflictError, NotFoundError, systemClock } from "../../client";
import { type BudgetClient, holdBudgets } from "../cost/guard";
import { priceBook, tierPrice } from "../cost/prices";
import { platform, type ProviderOptions } from "../engine/settings";
import { createFoundAgain } from "../lifecycle/find-again";
import { adopt, type Adoptable, checkAdoption, logNote, refuseReplaceWhileAdopted, releaseClaim, unfinishedCreate } from "../lifecycle/adopt";
import { deleteLine, stepLine, stepSubject } from "../lifecycle/step-line";
import { adoptTarget } from "../inputs/container";
import { baseOf, OWNER_TOKEN_KEY, pendingName, Predecessors } from "../lifecycle/owner";
import { pollFromEnv } from "../lifecycle/poller";
import { createWithRecovery } from "../lifecycle/recovery";
import { type Dialect, type EndpointClient, EndpointNotReadyError, MAX_POLLS } from "./dialect";
import { endpointWrite } from "./costed-write";
import { GraphqlDialect } from "./graphql";
import { firstTier, type LocalSettings, localSettings, WORKER_PRICE_KEY, workersOrderRefusal } from "./plan";
import { RestDialect } from "./rest";
import { RolloutNotOverError, settleRollout } from "./rollout";
import { ENDPOINT_STEP_EFFECTS, endpointStepPlan } from "./step-effects";
import {
  checkEndpointInputs,
  DEFAULT_DRAIN_TIMEOUT_SECONDS,
  DEFAULT_TYPE,
  ENDPOINT_KIND,
  type EndpointInputs,
  isOwnerNamed,
  type ServerlessEndpointOutputs,
  TEMPLATE_ROLLS_KEY,
} from "./schema";

export { EndpointNotReadyError } from "./dialect";

type Created = pulumi.dynamic.CreateResult<ServerlessEndpointOutputs>;
type AnyDialect = Dialect<{ id: string; name: string }>;

/**
 * Dependencies of the provider; tests inject a client, a clock, short polls and a signal.
 *
 * @group Providers and checks
 */
export interface ServerlessEndpointProviderOptions extends ProviderOptions<Pick<ComputePlatform, "endpoints">> {
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
}

/** What state keeps of the last `up` that no platform read gives back: the Template's fingerprint applied, the version and rollout. */
function carried(props: Partial<ServerlessEndpointOutputs> | undefined): Partial<ServerlessEndpointOutputs> {
  const keep = [TEMPLATE_ROLLS_KEY, "version", "rollout"] as const;
  return Object.fromEntries(keep.filter((k) => props?.[k] !== undefined).map((k) => [k, props![k]]));
}

/** The dialect of an endpoint managed through `api` (inputs or state): GraphQL unless "rest". */
const apiOf = (v: { api?: unknown } | undefined): "graphql" | "rest" => (v?.api === "rest" ? "rest" : "graphql");

/**
 * The real provider behind `shimProvider("serverless-endpoint")`.
 *
 * @group Providers and checks
 */
export class ServerlessEndpointProvider implements pulumi.dynamic.ResourceProvider<EndpointInputs, ServerlessEndpointOutputs> {
  private readonly client: () => EndpointClient;
  private readonly clock: Clock;
  private readonly signal?: AbortSignal;
  private readonly pollIntervalMs: number;
  private readonly maxPollIntervalMs: number;
  private readonly print: (line: string) => void;
  private readonly dialects: Record<"graphql" | "rest", AnyDialect>;
  /** GraphQL's: its poller is the one read of every endpoint's workers, which the rollout waits of both APIs share. */
  private readonly graphql: GraphqlDialect;
  /** What `diff` saw: the endpoint each resource's replacement replaces (owner.ts). */
  private readonly predecessors = new Predecessors();
  /** Endpoints this process's creates made and handed to the engine: never an earlier try, never another create's. */
  private readonly handedOver = new Set<string>();

  constructor(options: ServerlessEndpointProviderOptions = {}) {
    // Inside the plugin no options reach the provider: the same env knob as the pod poller.
    const fromEnv = pollFromEnv(process.env);
    // A client made for GraphQL endpoints alone (a test's) has no REST or catalog half: only GraphQL ever asks it.
    this.client = (options.client ?? platform) as () => EndpointClient;
    this.clock = options.clock ?? systemClock;
    this.signal = options.signal;
    this.pollIntervalMs = Math.max(1, options.pollIntervalMs ?? fromEnv.intervalMs ?? 1000);
    this.maxPollIntervalMs = Math.max(this.pollIntervalMs, options.maxPollIntervalMs ?? fromEnv.maxIntervalMs ?? 15_000);
    this.print = options.print ?? logNote;
    const context = {
      client: this.client,
      clock: this.clock,
      signal: this.signal,
      pollIntervalMs: this.pollIntervalMs,
      maxPollIntervalMs: this.maxPollIntervalMs,
      workerPrice: (gpuIds: string | undefined) => this.workerPrice(gpuIds),
    };
    this.graphql = new GraphqlDialect(context);
    this.dialects = { graphql: this.graphql as unknown as AnyDialect, rest: new RestDialect(context) as unknown as AnyDialect };
  }

  async check(olds: any, news: any): Promise<pulumi.dynamic.CheckResult<EndpointInputs>> {
    const result = checkEndpointInputs(olds, news, (base) => this.predecessors.get(base)) as pulumi.dynamic.CheckResult<EndpointInputs>;
    return checkAdoption(this.adoptable(result.inputs as EndpointInputs), olds, adoptTarget(result.inputs), result);
  }

  async diff(id: string, olds: ServerlessEndpointOutputs, news: EndpointInputs): Promise<pulumi.dynamic.DiffResult> {
    // If the engine replaces this endpoint, its second check and the create follow in this
    // process: they derive the new token (and auto-name) from it.
    this.predecessors.record(baseOf(ENDPOINT_KIND, news), id);
    const d = this.dialects[apiOf(news)];
    const verdict = d.diff(olds, news);
    const order = verdict.changes && !verdict.replaces?.length ? workersOrderRefusal(olds, news) : undefined;
    if (order) throw new Error(`ServerlessEndpoint ${olds.name ?? id}: ${order}`);
    refuseReplaceWhileAdopted(ENDPOINT_KIND, olds.name, id, news, verdict.replaces ?? []);
    const line = verdict.changes && stepLine(stepSubject(ENDPOINT_KIND, news, id), endpointStepPlan(olds, news, verdict.replaces ?? [], d.changes(olds, news), d.rolls(olds, news)), ENDPOINT_STEP_EFFECTS);
    if (line) this.print(line);
    return verdict;
  }

  /**
   * Look, make, retire (lifecycle/recovery.ts). Only an auto-named endpoint (its name comes from
   * the owner token, so it says which stack's resource made it) has earlier tries; a name the
   * user gave may be another stack's too: its create still takes only what it made.
   */
  async create(inputs: EndpointInputs): Promise<Created> {
    // Adopted: the same id (so the same requestUrls), the update sends only what differs.
    if (inputs.adopt) return adopt(this.adoptable(inputs), inputs.adopt, inputs, async ({ id, baseline }) => ({ id: id, ...(await this.update(id, baseline, inputs)) }));
    const d = this.dialects[apiOf(inputs)];
    const settings = localSettings(inputs);
    const old = this.predecessors.get(baseOf(ENDPOINT_KIND, inputs));
    const owned = isOwnerNamed(inputs);
    const token = inputs[OWNER_TOKEN_KEY];
    const pending = owned ? pendingName(inputs.name) : inputs.name;
    return createWithRecovery<{ id: string; name: string }, Created>({
      noun: "endpoint",
      name: inputs.name,
      token: token ?? `create:endpoint:${inputs.name}`,
      findByHand: `endpoints named "${pending}"`,
      list: d.sharedList(),
      clock: this.clock,
      signal: this.signal,
      // Only unfinished creates carry the pending name: an endpoint that was handed over is the user's (owner.ts).
      earlierTries: (listed) => (owned ? listed.filter((e) => e.name === pending) : []),
      fit: (earlier) => (token !== baseOf(ENDPOINT_KIND, inputs) ? earlier.filter((e) => (d.typeOf(e) ?? inputs.type) === inputs.type).at(-1) : undefined),
      takeOver: async (ep) => ({ id: ep.id, ...(await this.update(ep.id, d.outputs(ep, settings, inputs.type), inputs)) }),
      createNew: (seenBefore) => this.createNew(d, inputs, settings, new Set([...seenBefore, ...(old ? [old] : [])]), pending),
      keptId: (failure) => (failure instanceof EndpointNotReadyError ? failure.id : undefined),
      remove: (ep) => this.delete(ep.id, { name: ep.name, type: d.typeOf(ep) ?? inputs.type, api: inputs.api, drainTimeoutSeconds: inputs.drainTimeoutSeconds }),
      partial: (id, result, reason) => new EndpointNotReadyError(id, result.outs!, [reason]),
      handedOver: this.handedOver,
    });
  }

  async read(id: string, props?: Partial<ServerlessEndpointOutputs>): Promise<pulumi.dynamic.ReadResult<ServerlessEndpointOutputs>> {
    const r = await this.dialects[apiOf(props)].read(id, props, localSettings(props));
    // An empty result tells the engine the endpoint is gone. A refresh reads no releases: the
    // version and rollout stay as `up` last read them.
    return r ? { id, props: { ...carried(props), ...r.props }, inputs: r.inputs as unknown as ServerlessEndpointOutputs } : {};
  }

  /**
   * The dialect's update, then the rollout: after a change that rolls the workers (the
   * endpoint's own, or the bound Template's, which its own update already made on the
   * platform) or when state says the last rollout was not over, the wait until it is.
   */
  async update(id: string, olds: ServerlessEndpointOutputs, news: EndpointInputs): Promise<pulumi.dynamic.UpdateResult<ServerlessEndpointOutputs>> {
    const d = this.dialects[apiOf(news)];
    await holdBudgets(this.client as BudgetClient, endpointWrite(news, olds, id));
    const settings = localSettings(news, olds);
    const reasons = d.rolls(olds, news);
    let outs: ServerlessEndpointOutputs;
    try {
      outs = await d.update(id, olds, news, settings);
    } catch (err) {
      // Not applied: the Template's change and the rollout stay to be waited for by the next up.
      if (err instanceof EndpointNotReadyError) throw new EndpointNotReadyError(err.id, { ...carried(olds), ...err.properties }, err.reasons);
      throw err;
    } finally {
      d.wrote(id);
    }
    return { outs: await this.released(id, outs, settings, reasons, news) };
  }

  /**
   * The one drain loop: scale to 0/0, delete; again while a refused delete has time left. A
   * failure after the scale-down puts the workers back before it is passed on.
   */
  async delete(id: string, props: Partial<ServerlessEndpointOutputs>): Promise<void> {
    this.predecessors.forget(id);
    const d = this.dialects[apiOf(props)];
    try {
      await this.drain(d, id, props);
      releaseClaim(ENDPOINT_KIND, id);
      this.print(deleteLine(ENDPOINT_KIND, id, ENDPOINT_STEP_EFFECTS));
    } finally {
      d.wrote(id);
    }
  }

  // ---- steps ----

  /**
   * How an existing endpoint becomes this resource's (lifecycle/adopt.ts), through the API the
   * program names: read as that API shows it, its type fixed, the dialect's update from there.
   */
  private adoptable(inputs: EndpointInputs): Adoptable<ServerlessEndpointOutputs, ServerlessEndpointOutputs, EndpointInputs> {
    const d = this.dialects[apiOf(inputs)];
    return {
      kind: ENDPOINT_KIND,
      noun: "endpoint",
      find: async (id) => (await d.read(id, undefined, localSettings(inputs)))?.props,
      baseline: (live) => live,
      plan: (baseline, news) => ({ replaces: d.diff(baseline, news).replaces ?? [], updates: d.changes(baseline, news) }),
      fixed: (live) => `type: ${JSON.stringify(live.type)}`,
      wayOut: "remove adopt to create a new endpoint as declared (its id and requestUrls would change)",
      refuse: async (live, news) => unfinishedCreate(live.name) ?? (news.adopt ? await d.adoptRefusal?.(news.adopt) : undefined),
      account: { client: this.client(), signal: this.signal },
    };
  }

  private async drain(d: AnyDialect, id: string, props: Partial<ServerlessEndpointOutputs>): Promise<void> {
    const deadline = this.clock.now() + 1000 * (props?.drainTimeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_SECONDS);
    for (let attempt = 1; attempt <= MAX_POLLS; attempt++) {
      const ep = await d.current(id, deadline);
      if (!ep) return;
      const was = d.boundsOf(ep);
      let scaled = false;
      try {
        if (was.min !== 0 || was.max !== 0) {
          await d.scale(ep, props?.type, { min: 0, max: 0 });
          scaled = true;
        }
        await d.remove(id);
        return;
      } catch (err) {
        if (err instanceof NotFoundError) return;
        // Refused: its workers were raised again between our scale-down and the delete.
        if (!(err instanceof ConflictError) || this.clock.now() >= deadline) {
          if (scaled) await this.restore(d, ep, props, was, err);
          throw err;
        }
      }
      // The client's backoff at its ceiling: pollInterval, doubling, up to maxPollInterval.
      const pause = backoffMs(attempt, () => 1, { baseDelayMs: this.pollIntervalMs, maxBackoffMs: this.maxPollIntervalMs });
      await this.clock.sleep(Math.min(pause, Math.max(0, deadline - this.clock.now())), this.signal);
    }
    throw new Error(`ServerlessEndpoint ${props?.name ?? id}: delete refused ${MAX_POLLS} times`);
  }

  /**
   * A delete that failed after its scale-down: the endpoint stays in state with its workers, so
   * they are put back (a `pulumi up` that follows must not find it silently at 0/0). When that
   * fails too, the error says what the endpoint has now.
   */
  private async restore(d: AnyDialect, ep: { id: string; name: string }, props: Partial<ServerlessEndpointOutputs>, was: { min: number; max: number }, err: unknown): Promise<void> {
    try {
      await d.scale(ep, props?.type, was);
    } catch (restoreError) {
      if (err instanceof Error) {
        err.message +=
          `; endpoint ${ep.id} was scaled to 0/0 workers first, and putting back ${was.min}/${was.max} failed ` +
          `(${restoreError instanceof Error ? restoreError.message : String(restoreError)}): run \`pulumi refresh\` before \`pulumi up\``;
      }
    }
  }

  /**
   * The dialect's create (finding it after an ambiguous answer: never an endpoint in `excluded`),
   * then the wait for the workers; under `pending`, the name it carries until the create
   * finishes (an owned create, owner.ts), then it takes its own.
   */
  private async createNew(d: AnyDialect, inputs: EndpointInputs, settings: LocalSettings, excluded: Set<string>, pending: string): Promise<Created> {
    await holdBudgets(this.client as BudgetClient, endpointWrite(inputs, undefined, undefined, this.predecessors.get(baseOf(ENDPOINT_KIND, inputs))));
    const made = await createFoundAgain({
      noun: "endpoint",
      name: pending,
      create: (opts) => d.create(inputs, pending, opts),
      list: () => d.list(),
      isOurs: d.isOurs(inputs, pending),
      excluded,
      claimed: this.handedOver,
      unknownHint: "delete it",
      clock: this.clock,
      signal: this.signal,
    });
    const type = d.typeOf(made) ?? inputs.type ?? DEFAULT_TYPE;
    const named = (outs: ServerlessEndpointOutputs) => ({ ...outs, name: inputs.name });
    if (pending === inputs.name) return { id: made.id, outs: await this.released(made.id, await d.settle(made, settings, type), settings, [], inputs) };
    const rename = () => d.rename(made, inputs).finally(() => d.wrote(made.id));
    let outs: ServerlessEndpointOutputs;
    try {
      outs = await d.settle(made, settings, type);
    } catch (err) {
      // Its id goes to the engine with this error: handed over, so it takes its name.
      if (err instanceof EndpointNotReadyError && (await rename().then(() => true, () => false))) {
        throw new EndpointNotReadyError(err.id, named(err.properties), err.reasons);
      }
      throw err;
    }
    try {
      await rename();
    } catch (err) {
      // Kept in state with the name it has: the next up's diff shows the rename and makes it.
      throw new EndpointNotReadyError(made.id, outs, [`endpoint ${made.id} was made, but giving it its name failed: ${err instanceof Error ? err.message : String(err)}`]);
    }
    return { id: made.id, outs: await this.released(made.id, named(outs), settings, [], inputs) };
  }

  /**
   * The outputs with the endpoint's version and rollout (rollout.ts), after waiting for the
   * rollout `reasons` expect, and the Template's fingerprint this endpoint has now applied. A
   * rollout that did not finish keeps the endpoint in state, saying so, and the next `up` waits
   * again (its diff sees the rollout in progress). A read that only fills the outputs and fails
   * leaves them out (unknown) rather than fail a change the platform made.
   */
  private async released(id: string, outs: ServerlessEndpointOutputs, settings: LocalSettings, reasons: readonly string[], news: EndpointInputs): Promise<ServerlessEndpointOutputs> {
    const template = (news as Record<string, unknown>)[TEMPLATE_ROLLS_KEY];
    const applied = template === undefined ? outs : { ...outs, [TEMPLATE_ROLLS_KEY]: template };
    const client = this.client();
    // A client made for GraphQL endpoints alone (a test's) has no REST half to read releases with.
    if (!client.serverless) return applied;
    const wait = settings.waitForRollout && reasons.length > 0;
    try {
      const state = await settleRollout({
        client,
        id,
        clock: this.clock,
        signal: this.signal,
        reasons,
        wait,
        timeoutSeconds: settings.rolloutTimeoutSeconds,
        pollIntervalMs: this.pollIntervalMs,
        maxPollIntervalMs: this.maxPollIntervalMs,
        // An endpoint the program manages over REST is read over REST alone (the API it chose), and
        // a client made for REST endpoints alone (a test's) has no GraphQL half: each such wait
        // reads its own workers.
        shared: client.endpoints && apiOf(news) === "graphql" ? this.graphql.sharedPoller() : undefined,
      });
      return { ...applied, ...state };
    } catch (err) {
      if (err instanceof RolloutNotOverError) throw new EndpointNotReadyError(id, { ...applied, ...err.state }, [err.message]);
      if (!wait) return applied;
      throw new EndpointNotReadyError(id, applied, [`waiting for the rollout of endpoint ${id} failed: ${err instanceof Error ? err.message : String(err)}`]);
    }
  }

  /** One worker's catalog price for the endpoint's first tier (the catalog read once per process); none if it cannot tell. */
  private async workerPrice(gpuIds: string | undefined): Promise<Partial<LocalSettings>> {
    if (typeof gpuIds !== "string" || gpuIds === "") return {};
    const tier = firstTier(gpuIds);
    // A client made for endpoints alone (a test's) has no catalog to price from.
    const client = this.client();
    if (!client.catalog) return {};
    try {
      const price = tierPrice(await priceBook(() => client as Required<EndpointClient>).gpus(), tier);
      return price === undefined ? {} : { [WORKER_PRICE_KEY]: { tier, usd: price } };
    } catch {
      // The output is informational: a catalog that cannot answer leaves it out.
      return {};
    }
  }
}
