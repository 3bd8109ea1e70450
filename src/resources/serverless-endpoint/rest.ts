/*
 * ServerlessEndpoint over REST v2 (`api: "rest"`): the dialect of the lifecycle in provider.ts.
 *
 *   list    GET /v2/serverless, shared by a stack's look-ups before creating.
 *   create  POST /v2/serverless with the container inline (the platform makes the endpoint's
 *           own bound template), then, unless waitForWorkers is false,
 *           GET /v2/serverless/{id}/workers once per tick until workers.min are IDLE or RUNNING.
 *   rename  PATCH /v2/serverless/{id} {name}.
 *   read    GET /v2/serverless/{id} and its workers; 404 -> gone.
 *   update  the move from GraphQL first, when the endpoint was GraphQL-managed: a serverless
 *           template of its own from `container` (POST /v2/templates) and one saveEndpoint
 *           binding it with every field it has (the last GraphQL call), so no REST change can
 *           reach a Template the stack manages; then PATCH /v2/serverless/{id} with the
 *           changed fields only (sparse), then the same wait as create. Same id throughout. A
 *           PATCH that fails after the binding records the move as made (the endpoint runs its
 *           own template now), so a program reverted to its old templateId binds it back.
 *   scale   GET /v2/serverless/{id}, PATCH {workers: {min, max}}.
 *   remove  DELETE /v2/serverless/{id} (the platform also deletes the bound template, the endpoint's own).
 */
import { NotFoundError, type RestEndpoint, type Template } from "../../client";
import { ClientReads } from "../lifecycle/shared-reads";
import { type Bounds, type Dialect, type DialectContext, type EndpointClient, EndpointNotReadyError, goneError, MAX_POLLS } from "./dialect";
import { type LocalSettings, rolloutReasons, wantedValue } from "./plan";
import {
  containerOf,
  podsOfWorkers,
  planRestDiff,
  READY_WORKER_STATUSES,
  restChanges,
  restCreateBody,
  restInputsFromLive,
  restOutputs,
  restPatchBody,
} from "./rest-plan";
import { type EndpointInputs, SAVED_FIELDS, type ServerlessEndpointOutputs } from "./schema";

export class RestDialect implements Dialect<RestEndpoint> {
  /** Per client, the list look-ups before a create share. */
  private readonly reads: ClientReads<EndpointClient, RestEndpoint>;

  constructor(private readonly c: DialectContext) {
    this.reads = ClientReads.listing((client) => client.serverless.list(this.opts()), c.clock);
  }

  sharedList() {
    return this.reads.of(this.c.client()).list;
  }

  list(): Promise<RestEndpoint[]> {
    return this.c.client().serverless.list(this.opts());
  }

  create(inputs: EndpointInputs, name: string, opts: { signal?: AbortSignal; seenBefore?: ReadonlySet<string> }): Promise<RestEndpoint> {
    return this.c.client().serverless.create({ ...restCreateBody(inputs), name }, opts);
  }

  isOurs(inputs: EndpointInputs, name: string) {
    return (e: RestEndpoint) => e.name === name && e.image === inputs.container?.image;
  }

  typeOf(e: RestEndpoint): string | undefined {
    return e.type === "LOAD_BALANCING" ? "LB" : "QB";
  }

  outputs(e: RestEndpoint, settings: LocalSettings): ServerlessEndpointOutputs {
    return restOutputs(e, [], settings);
  }

  async rename(e: RestEndpoint, inputs: EndpointInputs): Promise<void> {
    await this.c.client().serverless.update(e.id, { name: inputs.name }, this.opts());
  }

  async read(id: string, _props: Partial<ServerlessEndpointOutputs> | undefined, settings: LocalSettings) {
    const ep = await this.find(id);
    if (!ep) return undefined;
    const workers = await this.workers(id);
    return { props: restOutputs(ep, podsOfWorkers(workers ?? []), { ...settings, ...(await this.price(ep)) }), inputs: restInputsFromLive(ep, settings) };
  }

  diff(olds: Record<string, any>, news: Record<string, any>) {
    return planRestDiff(olds, news);
  }

  rolls(olds: Record<string, any>, news: Record<string, any>): string[] {
    // The move from GraphQL binds the endpoint to a template of its own: a new release that rolls.
    return rolloutReasons(olds, news, [...restChanges(olds, news), ...(olds.api === "rest" ? [] : ["templateId"])]);
  }

  changes(olds: Record<string, any>, news: Record<string, any>): string[] {
    return restChanges(olds, news);
  }

  /**
   * Over REST an endpoint's container is its bound template's, and a container change PATCHes
   * that template: one that other endpoints are bound to (made over GraphQL naming a shared
   * template) would change them too. GraphQL's list says which template each runs.
   */
  async adoptRefusal(id: string): Promise<string | undefined> {
    const all = await this.c.client().endpoints.list({ ...this.opts(), fields: ["templateId"] });
    const templateId = all.find((e) => e.id === id)?.templateId;
    const others = all.filter((e) => e.id !== id && templateId && e.templateId === templateId).map((e) => e.id);
    if (others.length === 0) return undefined;
    return (
      `shares its template ${templateId} with endpoint(s) ${others.join(", ")}: over REST a container change would change ` +
      `them too. Adopt it over GraphQL (api left out, templateId: "${templateId}")`
    );
  }

  async update(id: string, olds: ServerlessEndpointOutputs, news: EndpointInputs, settings: LocalSettings): Promise<ServerlessEndpointOutputs> {
    const client = this.c.client();
    let current = olds as ServerlessEndpointOutputs & Record<string, any>;
    // The move from GraphQL: once the endpoint is bound to a template of its own, it is REST-managed.
    const moved = olds.api !== "rest" ? await this.ownContainer(id, current, news) : undefined;
    if (moved) current = { ...current, api: "rest", templateId: null, container: moved, dataCenterIds: [] };
    const changed = restChanges(current, news);
    let ep: RestEndpoint | undefined;
    try {
      ep =
        changed.length > 0
          ? await client.serverless.update(id, restPatchBody(changed, current, news, (f) => wantedValue(f, olds, news)), this.opts())
          : await client.serverless.get(id, this.opts());
    } catch (err) {
      if (err instanceof NotFoundError) throw goneError(olds.name, id);
      // The binding happened: state says so, or a program reverted to its old templateId would see no change.
      if (moved) throw new EndpointNotReadyError(id, current, [`endpoint ${id} was moved to REST (its own template bound), but updating it failed: ${message(err)}`]);
      throw err;
    } finally {
      this.wrote(id);
    }
    return this.settle(ep, settings);
  }

  async current(id: string): Promise<RestEndpoint | undefined> {
    return this.find(id);
  }

  boundsOf(e: RestEndpoint): Bounds {
    return { min: e.workers.min, max: e.workers.max };
  }

  async scale(e: RestEndpoint, _knownType: string | undefined, to: Bounds): Promise<void> {
    await this.c.client().serverless.update(e.id, { workers: { min: to.min, max: to.max } }, this.opts());
  }

  async remove(id: string): Promise<void> {
    await this.c.client().serverless.delete(id, this.opts());
  }

  wrote(id: string): void {
    this.reads.of(this.c.client()).wrote(id);
  }

  // ---- steps ----

  /**
   * The move from GraphQL: the endpoint gets a serverless template of its own, made from
   * `container`, and is bound to it with one saveEndpoint carrying every field it has. The
   * template it named before (perhaps a stack's Template) is left as it was. The container it
   * runs now, as its own template has it.
   */
  private async ownContainer(id: string, olds: ServerlessEndpointOutputs & Record<string, any>, news: EndpointInputs): Promise<ReturnType<typeof containerOf>> {
    const client = this.c.client();
    // A move that bound its own template and then failed later (state of an earlier release) left it bound: take it up again.
    const bound = await client.endpoints.get(id, this.opts()).catch((err) => {
      if (err instanceof NotFoundError) throw goneError(olds.name, id);
      throw err;
    });
    const current = await client.templates.get(bound.templateId, this.opts()).catch(() => undefined);
    if (current?.name.endsWith(`__template__${id}`)) return containerOfTemplate(await client.templates.update(current.id, { ...news.container! }, this.opts()));
    const own = await client.templates.create({ name: `${news.name}__template__${id}`, ...news.container!, serverless: true }, this.opts());
    const fields = Object.fromEntries(SAVED_FIELDS.filter((f) => olds[f] !== null && olds[f] !== undefined).map((f) => [f, olds[f]]));
    try {
      await client.endpoints.save({ ...fields, id, name: olds.name, gpuIds: olds.gpuIds, type: olds.type, templateId: own.id } as never, this.opts());
    } catch (err) {
      // Nothing half-made: the template exists only for this endpoint.
      await client.templates.delete(own.id, this.opts()).catch(() => undefined);
      if (err instanceof NotFoundError) throw goneError(olds.name, id);
      throw err;
    }
    return containerOfTemplate(own);
  }

  /** After a write: the outputs, once workers.min workers are IDLE or RUNNING (one workers list per tick). */
  async settle(ep: RestEndpoint, local: LocalSettings): Promise<ServerlessEndpointOutputs> {
    const settings = { ...local, ...(await this.price(ep)) };
    const want = ep.workers.min;
    let pods: { desiredStatus: string }[] = [];
    const outs = () => restOutputs(ep, pods, settings);
    const ready = () => pods.filter((p) => p.desiredStatus === "RUNNING").length;
    if (!settings.waitForWorkers) return outs();
    const deadline = this.c.clock.now() + 1000 * settings.readyTimeoutSeconds;
    let pause = this.c.pollIntervalMs;
    try {
      for (let i = 0; i < MAX_POLLS; i++) {
        const workers = await this.workers(ep.id);
        if (workers === undefined) throw new EndpointNotReadyError(ep.id, outs(), [`endpoint ${ep.id} disappeared while waiting for its workers`]);
        pods = podsOfWorkers(workers);
        if (ready() >= want || this.c.clock.now() >= deadline) break;
        await this.c.clock.sleep(Math.min(pause, Math.max(0, deadline - this.c.clock.now())), this.c.signal);
        pause = Math.min(this.c.maxPollIntervalMs, pause * 1.5);
      }
    } catch (err) {
      if (err instanceof EndpointNotReadyError) throw err;
      throw new EndpointNotReadyError(ep.id, outs(), [`waiting for the workers of endpoint ${ep.id} failed: ${message(err)}`]);
    }
    if (ready() < want) {
      throw new EndpointNotReadyError(ep.id, outs(), [
        `endpoint ${ep.id} has ${ready()} of ${want} workers ${READY_WORKER_STATUSES.join(" or ")} after ` +
          `${settings.readyTimeoutSeconds} s; it is kept in state and the next \`pulumi up\` waits again ` +
          "(raise readyTimeoutSeconds, or set waitForWorkers: false)",
      ]);
    }
    return outs();
  }

  private price(ep: RestEndpoint): Promise<Partial<LocalSettings>> {
    return this.c.workerPrice((ep.gpu?.pools ?? []).join(","));
  }

  private async workers(id: string): Promise<{ status: string }[] | undefined> {
    try {
      return [...(await this.c.client().serverless.workers(id, this.opts())).workers];
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  private async find(id: string): Promise<RestEndpoint | undefined> {
    try {
      return await this.c.client().serverless.get(id, this.opts());
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  private opts(): { signal?: AbortSignal } {
    return this.c.signal ? { signal: this.c.signal } : {};
  }
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** A template's container, every field present (what a REST endpoint's state holds): the same fields as an endpoint's. */
const containerOfTemplate = (t: Template) => containerOf(t as unknown as RestEndpoint);
