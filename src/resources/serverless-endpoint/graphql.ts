/*
 * ServerlessEndpoint over GraphQL (POST /graphql): the dialect of the lifecycle in provider.ts.
 *
 *   list    myself { endpoints }, shared: one for a stack's look-ups, waits and reads together.
 *   create  saveEndpoint(input: {name, gpuIds, templateId, type, ...given fields}); then,
 *           unless waitForWorkers is false, myself { endpoints } until workersMin workers are
 *           RUNNING (readyTimeoutSeconds).
 *   rename  saveEndpoint(input: {id, every field as just answered, name}).
 *   read    myself { endpoints } (by id), shared (lifecycle/shared-reads.ts); an endpoint missing
 *           from it is looked for in a later myself, which every read that missed shares.
 *   update  saveEndpoint(input: {id, type, every saved field}): the declared ones at their
 *           declared values, the others at their last-read values (read first when state lacks
 *           one), so the result is the same whether the platform keeps or resets left-out fields;
 *           nothing saved when only the bound Template or the wait settings changed (the
 *           endpoint then read as `read` does, so the endpoints of a promotion share one
 *           myself); then the same wait as create.
 *   scale   saveEndpoint(input: {id, every saved field at its live value, workersMin, workersMax}).
 *   remove  deleteEndpoint(id): the platform requires 0/0 saved and nothing more.
 */
import { type Endpoint as WireEndpoint, NotFoundError, unreadableRecord } from "../../client";
import { pollFromEnv, WaitTimeoutError } from "../lifecycle/poller";
import { ClientLists } from "../lifecycle/shared-list";
import { ClientReads } from "../lifecycle/shared-reads";
import { type Bounds, type Dialect, type DialectContext, type EndpointClient, EndpointNotReadyError, goneError } from "./dialect";
import {
  changedSavedFields,
  createInput,
  endpointOutputs,
  fullSaveInput,
  inputsFromLive,
  type LocalSettings,
  missingLive,
  planEndpointDiff,
  queueUrls,
  rolloutReasons,
  runningWorkers,
  type SavedField,
  wantedValues,
} from "./plan";
import { DEFAULT_TYPE, type EndpointInputs, type ServerlessEndpointOutputs } from "./schema";

export class GraphqlDialect implements Dialect<WireEndpoint> {
  /** Per client: the list every look-up and wait shares, and the poller over it. */
  private readonly lists: ClientLists<EndpointClient, WireEndpoint>;
  private readonly reads: ClientReads<EndpointClient, WireEndpoint>;

  constructor(private readonly c: DialectContext) {
    const fromEnv = pollFromEnv(process.env);
    this.lists = new ClientLists((client) => client.endpoints.list(this.opts()), c.clock, {
      ...fromEnv,
      intervalMs: c.pollIntervalMs,
      maxIntervalMs: c.maxPollIntervalMs,
      backoff: 1.5,
      // Stryker disable next-line StringLiteral: the noun only names the wait in WaitTimeoutError's message, which pollUntil catches
      noun: "endpoint",
      // Every endpoint wait (workers starting, workers draining) is slow: the pause grows by half each read.
      slow: () => true,
    });
    this.reads = new ClientReads((client) => this.lists.of(client).list, c.clock);
  }

  sharedList() {
    return this.lists.of(this.c.client()).list;
  }

  /** The poller over the shared list: one `myself` per tick for every wait of the process, a rollout's too (rollout.ts). */
  sharedPoller() {
    return this.lists.of(this.c.client()).poller;
  }

  list(): Promise<WireEndpoint[]> {
    return this.c.client().endpoints.list(this.opts());
  }

  create(inputs: EndpointInputs, name: string, opts: { signal?: AbortSignal; seenBefore?: ReadonlySet<string> }): Promise<WireEndpoint> {
    return this.c.client().endpoints.save({ ...createInput(inputs), name }, opts);
  }

  isOurs(inputs: EndpointInputs, name: string) {
    return (e: WireEndpoint) => e.name === name && e.templateId === inputs.templateId && (e.type == null || e.type === (inputs.type ?? DEFAULT_TYPE));
  }

  typeOf(e: WireEndpoint): string | undefined {
    return e.type ?? undefined;
  }

  outputs(e: WireEndpoint, settings: LocalSettings, type: string | undefined): ServerlessEndpointOutputs {
    const outs = endpointOutputs(e, settings, type);
    const urls = queueUrls(this.c.client().serverlessUrl, e.id, outs.type);
    return urls ? { ...outs, requestUrls: urls } : outs;
  }

  async rename(saved: WireEndpoint, inputs: EndpointInputs): Promise<void> {
    // Every other field goes along as the platform just answered it: a save may reset a field it leaves out.
    const input = fullSaveInput(saved.id, saved.type ?? inputs.type, saved as Partial<Record<SavedField, unknown>>, { name: inputs.name });
    await this.c.client().endpoints.save(input, this.opts());
  }

  async update(id: string, olds: ServerlessEndpointOutputs, news: EndpointInputs, settings: LocalSettings): Promise<ServerlessEndpointOutputs> {
    const changed = changedSavedFields(olds, news);
    let ep: WireEndpoint | undefined;
    if (changed.length > 0) {
      const wanted = wantedValues(olds, news);
      // The fields the program leaves to the platform go at their last-read values; state of an
      // earlier release may lack some: read them first.
      const live = missingLive(olds as unknown as Record<string, unknown>, wanted).length > 0 ? await this.find(id) : olds;
      if (!live) throw goneError(olds.name, id);
      try {
        ep = await this.c.client().endpoints.save(fullSaveInput(id, olds.type ?? news.type, live as Partial<Record<SavedField, unknown>>, wanted), this.opts());
      } catch (err) {
        if (err instanceof NotFoundError) throw goneError(olds.name, id);
        throw err;
      } finally {
        this.wrote(id);
      }
    } else {
      // Nothing to save (the bound Template's change that rolls, a wait setting, a wait to take
      // up again): the endpoints of a promotion, updated together, share one read.
      ep = await this.shared(id);
      if (!ep) throw goneError(olds.name, id);
    }
    // Also when nothing changed: an `up` after a failed readiness wait comes here to wait again.
    return this.settle(ep, settings, olds.type);
  }

  async read(id: string, props: Partial<ServerlessEndpointOutputs> | undefined, settings: LocalSettings) {
    const ep = await this.shared(id);
    if (!ep) return undefined;
    return { props: this.outputs(ep, settings, props?.type), inputs: inputsFromLive(ep, settings) };
  }

  diff(olds: Record<string, any>, news: Record<string, any>) {
    return planEndpointDiff(olds, news);
  }

  rolls(olds: Record<string, any>, news: Record<string, any>): string[] {
    return rolloutReasons(olds, news, changedSavedFields(olds, news));
  }

  changes(olds: Record<string, any>, news: Record<string, any>): string[] {
    return changedSavedFields(olds, news);
  }

  current(id: string, deadline: number): Promise<WireEndpoint | undefined> {
    // From the shared poller's next list: a stack's endpoints deleted together share one read.
    return this.pollUntil(id, () => true, deadline);
  }

  boundsOf(ep: WireEndpoint): Bounds {
    return { min: ep.workersMin ?? 0, max: ep.workersMax ?? 0 };
  }

  async scale(ep: WireEndpoint, knownType: string | undefined, to: Bounds): Promise<void> {
    // Every field at its live value but the two: the same endpoint whether the platform keeps or resets left-out fields.
    await this.c.client().endpoints.save(fullSaveInput(ep.id, ep.type ?? knownType ?? DEFAULT_TYPE, ep, { workersMin: to.min, workersMax: to.max }), this.opts());
  }

  async remove(id: string): Promise<void> {
    await this.c.client().endpoints.delete(id, this.opts());
  }

  wrote(id: string): void {
    this.reads.of(this.c.client()).wrote(id);
  }

  /**
   * After a save: the outputs, once `workersMin` workers are RUNNING (unless the program
   * turned the wait off). A failed wait becomes an {@link EndpointNotReadyError} with the id.
   */
  async settle(saved: WireEndpoint, local: LocalSettings, fallbackType: string | undefined): Promise<ServerlessEndpointOutputs> {
    const settings = { ...local, ...(await this.c.workerPrice(saved.gpuIds)) };
    let latest = saved;
    const outs = () => this.outputs(latest, settings, fallbackType);
    if (!settings.waitForWorkers) return outs();
    const deadline = this.c.clock.now() + 1000 * settings.readyTimeoutSeconds;
    try {
      const found = await this.pollUntil(saved.id, (e) => runningWorkers(e) >= (e.workersMin ?? 0), deadline, saved);
      if (found === undefined) throw new EndpointNotReadyError(saved.id, outs(), [`endpoint ${saved.id} disappeared while waiting for its workers`]);
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
   * Read the endpoint until `done` holds or the deadline passes, through the client's shared
   * poller: one `myself` per tick answers every endpoint this process waits on. `seen`, the
   * endpoint as just read or saved, may already be done. The last read, or undefined when gone.
   */
  private async pollUntil(id: string, done: (ep: WireEndpoint) => boolean, deadline: number, seen?: WireEndpoint): Promise<WireEndpoint | undefined> {
    if (seen && done(seen)) return seen;
    try {
      return await this.lists.of(this.c.client()).poller.wait(id, {
        // Stryker disable next-line StringLiteral: as the noun, a name for WaitTimeoutError's message, which is caught below
        description: "ready",
        timeoutMs: Math.max(0, deadline - this.c.clock.now()),
        signal: this.c.signal,
        until: (e) => (e === undefined || done(e) ? "done" : "pending"),
      });
    } catch (err) {
      // Out of time: the caller decides from the endpoint as last read.
      if (err instanceof WaitTimeoutError) return (err.last as WireEndpoint | undefined) ?? (await this.find(id));
      throw err;
    }
  }

  /** The endpoint through the reads that come together (lifecycle/shared-reads.ts); undefined when gone. */
  private shared(id: string): Promise<WireEndpoint | undefined> {
    const { list } = this.lists.of(this.c.client());
    return this.reads.of(this.c.client()).read(id, {
      one: (epId) => this.find(epId),
      // The only read is the list: a list sent after the one that missed it confirms.
      confirm: async (epId, seq) => {
        const later = await list.since(seq);
        return later.find((e) => e.id === epId) ?? (unreadableRecord(later, epId) ? await this.find(epId) : undefined);
      },
    });
  }

  /** The endpoint, or undefined when the platform no longer has it. */
  private async find(id: string): Promise<WireEndpoint | undefined> {
    try {
      return (await this.c.client().endpoints.get(id, this.opts())) ?? undefined;
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  private opts(): { signal?: AbortSignal } {
    return this.c.signal ? { signal: this.c.signal } : {};
  }
}
