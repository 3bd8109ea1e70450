/*
 * ServerlessEndpoint: lifecycle -> API calls (all GraphQL, POST /graphql)
 *
 *   check   no request. Allowed values of the endpoint fields, integers >= 0, workersMin <= workersMax;
 *           defaults filled (type QB, wait settings); the owner token and an auto-name from
 *           it (lifecycle/owner.ts), both kept across updates.
 *   diff    no request. type -> replace (the kind is fixed); any other field -> update in
 *           place. A field never declared is the platform's choice: never a diff; one
 *           declared and removed goes back to the platform's default (schema.ts FIELD_DEFAULTS).
 *   create  auto-named: lifecycle/recovery.ts: myself { endpoints } (shared: one for a
 *           stack's creates) for the endpoints of that name, earlier tries of this create,
 *           taken over by a replacement or deleted once this one exists. Then
 *           saveEndpoint(input: {name, gpuIds, templateId, type, ...given fields}) (after an
 *           ambiguous failure, a few more looks by name: `findMade`),
 *           then, unless waitForWorkers is false, myself { endpoints } until workersMin
 *           workers are RUNNING (readyTimeoutSeconds). A failed wait keeps the id: Pulumi
 *           records the endpoint and the next `up` waits again.
 *   read    myself { endpoints } (by id); reads that come together (a refresh) share one
 *           (lifecycle/shared-reads.ts); an endpoint missing from it is looked for in a later
 *           myself, which every read that missed shares. Gone -> gone.
 *   update  saveEndpoint(input: {id, type, every saved field}): the declared ones at their
 *           declared values, the others at their last-read values (read first when state
 *           lacks one), so the result is the same whether the platform keeps or resets
 *           left-out fields; nothing sent when only the wait settings changed; then the same
 *           wait as create.
 *   delete  myself { endpoints } (shared), saveEndpoint(input: {id, every saved field at its
 *           live value, workersMin: 0, workersMax: 0}) unless already 0/0, then deleteEndpoint(id): the platform requires
 *           0/0 saved and nothing more (draining workers may stay listed a while). A refused
 *           delete (FAILED_PRECONDITION: someone scaled it up again) starts over from the
 *           scale-down, with backoff, within drainTimeoutSeconds.
 *           Gone at any step is success. Every step is repeatable, so a delete that fails
 *           midway is finished by the next `pulumi destroy`.
 *
 * An endpoint with `api: "rest"` goes through REST v2 instead (rest.ts, its own map).
 */
import type * as pulumi from "@pulumi/pulumi";
import {
  AmbiguousRequestError,
  backoffMs,
  type ComputePlatform,
  ConflictError,
  NotFoundError,
  type Endpoint as WireEndpoint,
  unreadableRecord,
} from "../../client";
import { platform, type ProviderOptions } from "../engine/settings";
import { baseOf, OWNER_TOKEN_KEY, pendingName } from "../lifecycle/owner";
import { pollFromEnv, WaitTimeoutError } from "../lifecycle/poller";
import { createWithRecovery, findMade, lookAgain, LOOKUPS, OwningProvider } from "../lifecycle/recovery";
import {
  changedSavedFields,
  createInput,
  endpointOutputs,
  firstTier,
  inputsFromLive,
  type LocalSettings,
  localSettings,
  planEndpointDiff,
  runningWorkers,
  fullSaveInput,
  missingLive,
  type SavedField,
  wantedValues,
  WORKER_PRICE_KEY,
} from "./plan";
import { priceBook, tierPrice } from "../cost/prices";
import { RestEndpointSteps } from "./rest";
import { isRest, planRestDiff } from "./rest-plan";
import {
  checkEndpointInputs,
  DEFAULT_DRAIN_TIMEOUT_SECONDS,
  DEFAULT_TYPE,
  ENDPOINT_KIND,
  type EndpointInputs,
  isOwnerNamed,
  type ServerlessEndpointOutputs,
} from "./schema";

type Client = Pick<ComputePlatform, "endpoints">;
type Created = pulumi.dynamic.CreateResult<ServerlessEndpointOutputs>;

/**
 * Dependencies of the provider; tests inject a client, a clock, short polls and a signal.
 *
 * @group Providers and checks
 */
export interface ServerlessEndpointProviderOptions extends ProviderOptions<Client> {
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

/**
 * A create or update whose endpoint exists but did not become ready. `id`, `properties` and
 * `reasons` are what Pulumi's dynamic provider turns into a partial result, so the endpoint is
 * recorded in state instead of being forgotten.
 *
 * @group Errors
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

function goneError(name: string, id: string): Error {
  return new Error(
    `ServerlessEndpoint ${JSON.stringify(name)} (${id}) no longer exists on the platform; run \`pulumi refresh\` ` +
      "to forget it, then `pulumi up` to make a new one",
  );
}

/**
 * The real provider behind `shimProvider("serverless-endpoint")`.
 *
 * @group Providers and checks
 */
export class ServerlessEndpointProvider
  extends OwningProvider<Client, WireEndpoint>
  implements pulumi.dynamic.ResourceProvider<EndpointInputs, ServerlessEndpointOutputs>
{
  private readonly pollIntervalMs: number;
  private readonly maxPollIntervalMs: number;
  /** The lifecycle of endpoints with `api: "rest"`. */
  private readonly rest: RestEndpointSteps;

  constructor(options: ServerlessEndpointProviderOptions = {}) {
    // Inside the plugin no options reach the provider: the same env knob as the pod poller.
    const fromEnv = pollFromEnv(process.env);
    const intervalMs = Math.max(1, options.pollIntervalMs ?? fromEnv.intervalMs ?? 1000);
    const maxIntervalMs = Math.max(intervalMs, options.maxPollIntervalMs ?? fromEnv.maxIntervalMs ?? 15_000);
    super(options, platform, (client, signal) => client.endpoints.list(signal ? { signal } : {}), {
      intervalMs,
      maxIntervalMs,
      backoff: 1.5,
      noun: "endpoint",
      // Every endpoint wait (workers starting, workers draining) is slow: the pause grows by half each read.
      slow: () => true,
    });
    this.pollIntervalMs = intervalMs;
    this.maxPollIntervalMs = maxIntervalMs;
    this.rest = new RestEndpointSteps({
      client: () => this.client() as unknown as Pick<ComputePlatform, "serverless" | "templates" | "endpoints">,
      clock: this.clock,
      signal: this.signal,
      pollIntervalMs: intervalMs,
      maxPollIntervalMs: maxIntervalMs,
      notReady: (id, outs, reason) => new EndpointNotReadyError(id, outs, [reason]),
      workerPrice: (ep) => this.workerPrice(ep),
    });
  }

  async check(olds: any, news: any): Promise<pulumi.dynamic.CheckResult<EndpointInputs>> {
    return checkEndpointInputs(olds, news, (base) => this.predecessors.get(base)) as pulumi.dynamic.CheckResult<EndpointInputs>;
  }

  async diff(id: string, olds: ServerlessEndpointOutputs, news: EndpointInputs): Promise<pulumi.dynamic.DiffResult> {
    // If the engine replaces this endpoint, its second check and the create follow in this
    // process: they derive the new token (and auto-name) from it.
    this.predecessors.record(baseOf(ENDPOINT_KIND, news), id);
    return isRest(news) ? planRestDiff(olds, news) : planEndpointDiff(olds, news);
  }

  /**
   * An auto-named endpoint (its name comes from the owner token, so it says which stack's
   * resource made it): the endpoints that already carry the name are earlier tries of this
   * create whose answer was lost, taken over when this is a replacement diffed in this
   * process, else deleted once the new one exists (owner.ts says why). A name the user gave
   * may be another stack's: nothing is looked for.
   */
  async create(inputs: EndpointInputs): Promise<Created> {
    const settings = localSettings(inputs);
    const old = this.predecessors.get(baseOf(ENDPOINT_KIND, inputs));
    if (isRest(inputs)) {
      // The client's create-once looks an ambiguous create up by name and image, never sending it twice.
      try {
        const r = await this.rest.create(inputs, settings);
        this.handedOver.add(r.id);
        return r;
      } catch (err) {
        if (err instanceof EndpointNotReadyError) this.handedOver.add(err.id);
        throw err;
      }
    }
    if (!isOwnerNamed(inputs)) {
      // Only the endpoint being replaced is kept from passing for the new one after an ambiguous create.
      try {
        const r = await this.createNew(inputs, settings, new Set(old ? [old] : []));
        this.handedOver.add(r.id);
        return r;
      } catch (err) {
        if (err instanceof EndpointNotReadyError) this.handedOver.add(err.id);
        throw err;
      }
    }
    const token = inputs[OWNER_TOKEN_KEY]!;
    const { list } = this.lists.of(this.client());
    // Every endpoint of the name: none can be the one this create makes.
    let named: WireEndpoint[] = [];
    return createWithRecovery<WireEndpoint, Created>({
      noun: "endpoint",
      name: inputs.name,
      token,
      findByHand: `endpoints named "${inputs.name}"`,
      list,
      lookFirst: true,
      // Only unfinished creates carry the pending name: an endpoint that was handed over is the user's (owner.ts).
      earlierTries: async () => {
        const all = await lookAgain(() => list.get(token), { clock: this.clock, signal: this.signal, attempts: LOOKUPS });
        named = all.filter((e) => e.name === pendingName(inputs.name));
        return named.filter((e) => !this.handedOver.has(e.id));
      },
      fit: (earlier) => (token !== baseOf(ENDPOINT_KIND, inputs) ? earlier.filter((e) => (e.type ?? inputs.type) === inputs.type).at(-1) : undefined),
      takeOver: async (ep) => ({ id: ep.id, ...(await this.update(ep.id, endpointOutputs(ep, settings, inputs.type), inputs)) }),
      createNew: () => this.createNew(inputs, settings, new Set([...named.map((e) => e.id), ...(old ? [old] : [])]), pendingName(inputs.name)),
      keptId: (failure) => (failure instanceof EndpointNotReadyError ? failure.id : undefined),
      remove: (ep) => this.delete(ep.id, { name: ep.name, type: ep.type ?? inputs.type, drainTimeoutSeconds: inputs.drainTimeoutSeconds }),
      partial: (id, result, reason) => new EndpointNotReadyError(id, result.outs!, [reason]),
      handedOver: this.handedOver,
    });
  }

  async read(id: string, props?: Partial<ServerlessEndpointOutputs>): Promise<pulumi.dynamic.ReadResult<ServerlessEndpointOutputs>> {
    if (isRest(props)) {
      const r = await this.rest.read(id, localSettings(props));
      return r ? { id, props: r.props, inputs: r.inputs as unknown as ServerlessEndpointOutputs } : {};
    }
    const { list } = this.lists.of(this.client());
    const ep = await this.reads.of(this.client()).read(id, {
      one: (epId) => this.find(epId),
      // The only read is the list: a list sent after the one that missed it confirms.
      confirm: async (epId, seq) => {
        const later = await list.since(seq);
        return later.find((e) => e.id === epId) ?? (unreadableRecord(later, epId) ? await this.find(epId) : undefined);
      },
    });
    // An empty result tells the engine the endpoint is gone.
    if (!ep) return {};
    const settings = localSettings(props);
    return {
      id: ep.id,
      props: endpointOutputs(ep, settings, props?.type),
      inputs: inputsFromLive(ep, settings) as unknown as ServerlessEndpointOutputs,
    };
  }

  async update(id: string, olds: ServerlessEndpointOutputs, news: EndpointInputs): Promise<pulumi.dynamic.UpdateResult<ServerlessEndpointOutputs>> {
    if (isRest(news)) {
      try {
        return { outs: await this.rest.update(id, olds, news, localSettings(news)) };
      } finally {
        this.reads.of(this.client()).wrote(id);
      }
    }
    const changed = changedSavedFields(olds, news);
    let ep: WireEndpoint | undefined;
    if (changed.length > 0) {
      const wanted = wantedValues(olds, news);
      // The fields the program leaves to the platform go at their last-read values; state of an
      // earlier release may lack some: read them first.
      const live = missingLive(olds as unknown as Record<string, unknown>, wanted).length > 0 ? await this.find(id) : olds;
      if (!live) throw goneError(olds.name, id);
      try {
        ep = await this.client().endpoints.save(fullSaveInput(id, olds.type ?? news.type, live as Partial<Record<SavedField, unknown>>, wanted), this.opts());
      } catch (err) {
        if (err instanceof NotFoundError) throw goneError(olds.name, id);
        throw err;
      } finally {
        this.reads.of(this.client()).wrote(id);
      }
    } else {
      ep = await this.find(id);
      if (!ep) throw goneError(olds.name, id);
    }
    // Also when nothing changed: an `up` after a failed readiness wait comes here to wait again.
    return { outs: await this.settle(ep, localSettings(news), olds.type) };
  }

  async delete(id: string, props: Partial<ServerlessEndpointOutputs>): Promise<void> {
    this.predecessors.forget(id);
    try {
      if (isRest(props)) await this.rest.delete(id, props);
      else await this.remove(id, props);
    } finally {
      this.reads.of(this.client()).wrote(id);
    }
  }

  /** Scale to 0/0 workers, then deleteEndpoint; again while a refused delete has time left. */
  private async remove(id: string, props: Partial<ServerlessEndpointOutputs>): Promise<void> {
    const boundMs = 1000 * (props?.drainTimeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_SECONDS);
    const deadline = this.clock.now() + boundMs;
    for (let attempt = 1; attempt <= MAX_POLLS; attempt++) {
      if ((await this.scaleToZero(id, props?.type, deadline)) === "gone") return;
      try {
        await this.client().endpoints.delete(id, this.opts());
        return;
      } catch (err) {
        if (err instanceof NotFoundError) return;
        // Refused: its workers were raised again between our scale-down and the delete.
        if (!(err instanceof ConflictError) || this.clock.now() >= deadline) throw err;
      }
      // The client's backoff at its ceiling: pollInterval, doubling, up to maxPollInterval.
      const pause = backoffMs(attempt, () => 1, { baseDelayMs: this.pollIntervalMs, maxBackoffMs: this.maxPollIntervalMs });
      await this.clock.sleep(Math.min(pause, Math.max(0, deadline - this.clock.now())), this.signal);
    }
    throw new Error(`ServerlessEndpoint ${props?.name ?? id}: delete refused ${MAX_POLLS} times`);
  }

  // ---- steps ----

  /**
   * saveEndpoint (finding it after an ambiguous answer), then wait for the workers.
   * `excluded`: endpoints that cannot be the one made. `pending`: the name it carries until
   * the create finishes (an owned create, owner.ts), then it takes its own.
   */
  private async createNew(inputs: EndpointInputs, settings: LocalSettings, excluded: Set<string>, pending?: string): Promise<Created> {
    const input = { ...createInput(inputs), ...(pending ? { name: pending } : {}) };
    const find = (cause?: AmbiguousRequestError) =>
      findMade<WireEndpoint>({
        noun: "endpoint",
        name: input.name,
        list: () => this.client().endpoints.list(this.opts()),
        isOurs: (e) => e.name === input.name && e.templateId === input.templateId && (e.type == null || e.type === (input.type ?? DEFAULT_TYPE)),
        excluded,
        cause,
        unknownHint: "delete it",
        newest: (items) => items.at(-1),
        clock: this.clock,
        signal: this.signal,
      });
    let saved: WireEndpoint;
    try {
      saved = await this.client().endpoints.save(input, this.opts());
    } catch (err) {
      if (!(err instanceof AmbiguousRequestError)) throw err;
      saved = await find(err);
    }
    // The client's own look-up took an endpoint that was there before (same name): look again without it.
    if (excluded.has(saved.id)) saved = await find();
    if (!pending) return { id: saved.id, outs: await this.settle(saved, settings, inputs.type) };
    let outs: ServerlessEndpointOutputs;
    try {
      outs = await this.settle(saved, settings, inputs.type);
    } catch (err) {
      // Its id goes to the engine with this error: handed over, so it takes its name.
      if (err instanceof EndpointNotReadyError) {
        const named = await this.rename(saved, inputs).catch(() => undefined);
        if (named) throw new EndpointNotReadyError(err.id, { ...err.properties, name: named.name }, err.reasons);
      }
      throw err;
    }
    try {
      const named = await this.rename(saved, inputs);
      return { id: saved.id, outs: { ...outs, name: named.name } };
    } catch (err) {
      // Kept in state with the name it has: the next up's diff shows the rename and makes it.
      throw new EndpointNotReadyError(saved.id, outs, [`endpoint ${saved.id} was made, but giving it its name failed: ${err instanceof Error ? err.message : String(err)}`]);
    }
  }

  /**
   * The save that gives a finished create's endpoint its own name: only the name changes. Every
   * other field goes along as the platform just answered it, since a save may reset a field it
   * leaves out to its default.
   */
  private async rename(saved: WireEndpoint, inputs: EndpointInputs): Promise<WireEndpoint> {
    try {
      const input = fullSaveInput(saved.id, saved.type ?? inputs.type, saved as Partial<Record<SavedField, unknown>>, { name: inputs.name });
      return await this.client().endpoints.save(input, this.opts());
    } finally {
      this.reads.of(this.client()).wrote(saved.id);
    }
  }

  /** One worker's catalog price for the endpoint's first tier (the catalog read once per process); none if it cannot tell. */
  private async workerPrice(ep: WireEndpoint): Promise<Partial<LocalSettings>> {
    if (typeof ep.gpuIds !== "string") return {};
    const tier = firstTier(ep.gpuIds);
    // A client made for endpoints alone (a test's) has no catalog to price from.
    const client = this.client() as Partial<Pick<ComputePlatform, "catalog">>;
    if (!client.catalog) return {};
    try {
      const price = tierPrice(await priceBook(() => client as Pick<ComputePlatform, "catalog">).gpus(), tier);
      return price === undefined ? {} : { [WORKER_PRICE_KEY]: { tier, usd: price } };
    } catch {
      // The output is informational: a catalog that cannot answer leaves it out.
      return {};
    }
  }

  /**
   * Save 0/0 unless the endpoint is there already: all the platform requires before a delete.
   * Draining workers may stay listed a while (EXITED); nothing waits for them.
   */
  private async scaleToZero(id: string, knownType: string | undefined, deadline: number): Promise<"gone" | "saved"> {
    // From the shared poller's next list: a stack's endpoints deleted together share one read.
    const ep = await this.pollUntil(id, () => true, deadline);
    if (!ep) return "gone";
    if (ep.workersMin === 0 && ep.workersMax === 0) return "saved";
    try {
      // Every field at its live value but the two: the same endpoint whether the platform keeps or resets left-out fields.
      await this.client().endpoints.save(fullSaveInput(id, ep.type ?? knownType ?? DEFAULT_TYPE, ep, { workersMin: 0, workersMax: 0 }), this.opts());
      return "saved";
    } catch (err) {
      if (err instanceof NotFoundError) return "gone";
      throw err;
    }
  }

  /**
   * After a save: the outputs, once `workersMin` workers are RUNNING (unless the program
   * turned the wait off). A failed wait becomes an {@link EndpointNotReadyError} with the id.
   */
  private async settle(saved: WireEndpoint, local: LocalSettings, fallbackType: string | undefined): Promise<ServerlessEndpointOutputs> {
    const settings = { ...local, ...(await this.workerPrice(saved)) };
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
   * Read the endpoint until the kind's readiness predicate `done` holds or the deadline
   * passes, through the client's shared poller: one `myself` per tick answers every endpoint
   * this process waits on. `seen`, the endpoint as just read or saved, may already be done.
   * Returns the last read, or undefined when the endpoint is gone.
   */
  private async pollUntil(id: string, done: (ep: WireEndpoint) => boolean, deadline: number, seen?: WireEndpoint): Promise<WireEndpoint | undefined> {
    if (seen && done(seen)) return seen;
    try {
      return await this.lists.of(this.client()).poller.wait(id, {
        description: "ready",
        timeoutMs: Math.max(0, deadline - this.clock.now()),
        signal: this.signal,
        until: (e) => (e === undefined || done(e) ? "done" : "pending"),
      });
    } catch (err) {
      // Out of time: the caller decides from the endpoint as last read.
      if (err instanceof WaitTimeoutError) return (err.last as WireEndpoint | undefined) ?? (await this.find(id));
      throw err;
    }
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
