/*
 * ServerlessEndpoint over REST v2 (`api: "rest"`): lifecycle -> API calls
 *
 *   create  POST /v2/serverless with the container inline (the platform makes the endpoint's
 *           own bound template; after an ambiguous failure the client looks it up by name and
 *           image, never sending it twice), then, unless waitForWorkers is false,
 *           GET /v2/serverless/{id}/workers once per tick until workers.min are IDLE or RUNNING.
 *   read    GET /v2/serverless/{id} and its workers; 404 -> gone.
 *   update  the move from GraphQL first, when the endpoint was GraphQL-managed: a serverless
 *           template of its own from `container` (POST /v2/templates) and one saveEndpoint
 *           binding it with every field it has (the last GraphQL call), so no REST change can
 *           reach a Template the stack manages; then PATCH /v2/serverless/{id} with the
 *           changed fields only (sparse), then the same wait as create. Same id throughout.
 *   delete  GET, PATCH workers {min: 0, max: 0} unless already 0/0, DELETE (the platform also
 *           deletes the bound template, the endpoint's own); a 409 (scaled up again meanwhile)
 *           starts over with backoff within drainTimeoutSeconds. 404 at any step is success.
 */
import {
  backoffMs,
  type ComputePlatform,
  ConflictError,
  type Endpoint as WireEndpoint,
  NotFoundError,
  type RestEndpoint,
} from "../../client";
import type { Clock } from "../../client";
import { WaitTimeoutError } from "../lifecycle/poller";
import { type LocalSettings, wantedValue } from "./plan";
import {
  podsOfWorkers,
  READY_WORKER_STATUSES,
  restChanges,
  restCreateBody,
  restInputsFromLive,
  restOutputs,
  restPatchBody,
} from "./rest-plan";
import { DEFAULT_DRAIN_TIMEOUT_SECONDS, type EndpointInputs, SAVED_FIELDS, type ServerlessEndpointOutputs } from "./schema";

type Client = Pick<ComputePlatform, "serverless" | "templates" | "endpoints">;

export interface RestStepsOptions {
  client: () => Client;
  clock: Clock;
  signal?: AbortSignal;
  pollIntervalMs: number;
  maxPollIntervalMs: number;
  /** The endpoint exists but is not ready: the provider's partial-result error. */
  notReady: (id: string, outs: ServerlessEndpointOutputs, reason: string) => Error;
  /** The worker price for the endpoint's first tier, for the cost outputs. */
  workerPrice: (ep: WireEndpoint) => Promise<Partial<LocalSettings>>;
}

/** Stops a loop that would otherwise run on with a clock that does not advance. */
const MAX_POLLS = 10_000;

export class RestEndpointSteps {
  constructor(private readonly o: RestStepsOptions) {}

  async create(inputs: EndpointInputs, settings: LocalSettings): Promise<{ id: string; outs: ServerlessEndpointOutputs }> {
    const ep = await this.o.client().serverless.create(restCreateBody(inputs), this.opts());
    return { id: ep.id, outs: await this.settle(ep, settings) };
  }

  async read(id: string, settings: LocalSettings): Promise<{ props: ServerlessEndpointOutputs; inputs: Record<string, unknown> } | undefined> {
    const ep = await this.find(id);
    if (!ep) return undefined;
    const workers = await this.workers(id);
    return { props: restOutputs(ep, podsOfWorkers(workers ?? []), { ...settings, ...(await this.price(ep)) }), inputs: restInputsFromLive(ep, settings) };
  }

  async update(id: string, olds: ServerlessEndpointOutputs, news: EndpointInputs, settings: LocalSettings): Promise<ServerlessEndpointOutputs> {
    const client = this.o.client();
    const current = olds as ServerlessEndpointOutputs & Record<string, any>;
    if (olds.api !== "rest") await this.ownContainer(id, current, news);
    // After the move the container is the new template's already: only the other changes go.
    const changed = restChanges(olds.api === "rest" ? current : { ...current, container: news.container }, news);
    let ep: RestEndpoint | undefined;
    try {
      ep =
        changed.length > 0
          ? await client.serverless.update(id, restPatchBody(changed, current, news, (f) => wantedValue(f, olds, news)), this.opts())
          : await client.serverless.get(id, this.opts());
    } catch (err) {
      if (err instanceof NotFoundError) throw gone(olds.name, id);
      throw err;
    }
    return this.settle(ep, settings);
  }

  /** Scale to 0/0 workers, then DELETE; again while a refused delete has time left. */
  async delete(id: string, props: Partial<ServerlessEndpointOutputs>): Promise<void> {
    const client = this.o.client();
    const deadline = this.o.clock.now() + 1000 * (props?.drainTimeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_SECONDS);
    for (let attempt = 1; attempt <= MAX_POLLS; attempt++) {
      const ep = await this.find(id);
      if (!ep) return;
      try {
        if (ep.workers.min !== 0 || ep.workers.max !== 0) await client.serverless.update(id, { workers: { min: 0, max: 0 } }, this.opts());
        await client.serverless.delete(id, this.opts());
        return;
      } catch (err) {
        if (err instanceof NotFoundError) return;
        if (!(err instanceof ConflictError) || this.o.clock.now() >= deadline) throw err;
      }
      const pause = backoffMs(attempt, () => 1, { baseDelayMs: this.o.pollIntervalMs, maxBackoffMs: this.o.maxPollIntervalMs });
      await this.o.clock.sleep(Math.min(pause, Math.max(0, deadline - this.o.clock.now())), this.o.signal);
    }
    throw new Error(`ServerlessEndpoint ${props?.name ?? id}: delete refused ${MAX_POLLS} times`);
  }

  // ---- steps ----

  /**
   * The move from GraphQL: the endpoint gets a serverless template of its own, made from
   * `container`, and is bound to it with one saveEndpoint carrying every field it has. The
   * template it named before (perhaps a stack's Template) is left as it was.
   */
  private async ownContainer(id: string, olds: ServerlessEndpointOutputs & Record<string, any>, news: EndpointInputs): Promise<void> {
    const client = this.o.client();
    // A move that bound its own template and then failed later left it bound: take it up again.
    const bound = await client.endpoints.get(id, this.opts()).catch((err) => {
      if (err instanceof NotFoundError) throw gone(olds.name, id);
      throw err;
    });
    const current = await client.templates.get(bound.templateId, this.opts()).catch(() => undefined);
    if (current?.name.endsWith(`__template__${id}`)) {
      await client.templates.update(current.id, { ...news.container! }, this.opts());
      return;
    }
    const own = await client.templates.create({ name: `${news.name}__template__${id}`, ...news.container!, serverless: true }, this.opts());
    const fields = Object.fromEntries(SAVED_FIELDS.filter((f) => olds[f] !== null && olds[f] !== undefined).map((f) => [f, olds[f]]));
    try {
      await client.endpoints.save({ ...fields, id, name: olds.name, gpuIds: olds.gpuIds, type: olds.type, templateId: own.id } as never, this.opts());
    } catch (err) {
      // Nothing half-made: the template exists only for this endpoint.
      await client.templates.delete(own.id, this.opts()).catch(() => undefined);
      if (err instanceof NotFoundError) throw gone(olds.name, id);
      throw err;
    }
  }

  /** After a write: the outputs, once workers.min workers are IDLE or RUNNING (one workers list per tick). */
  private async settle(ep: RestEndpoint, local: LocalSettings): Promise<ServerlessEndpointOutputs> {
    const settings = { ...local, ...(await this.price(ep)) };
    const want = ep.workers.min;
    let pods: { desiredStatus: string }[] = [];
    const outs = () => restOutputs(ep, pods, settings);
    const ready = () => pods.filter((p) => p.desiredStatus === "RUNNING").length;
    if (!settings.waitForWorkers) return outs();
    const deadline = this.o.clock.now() + 1000 * settings.readyTimeoutSeconds;
    let pause = this.o.pollIntervalMs;
    try {
      for (let i = 0; i < MAX_POLLS; i++) {
        const workers = await this.workers(ep.id);
        if (workers === undefined) throw this.o.notReady(ep.id, outs(), `endpoint ${ep.id} disappeared while waiting for its workers`);
        pods = podsOfWorkers(workers);
        if (ready() >= want || this.o.clock.now() >= deadline) break;
        await this.o.clock.sleep(Math.min(pause, Math.max(0, deadline - this.o.clock.now())), this.o.signal);
        pause = Math.min(this.o.maxPollIntervalMs, pause * 1.5);
      }
    } catch (err) {
      if (err instanceof Error && err.name === "EndpointNotReadyError") throw err;
      const reason = err instanceof WaitTimeoutError || err instanceof Error ? err.message : String(err);
      throw this.o.notReady(ep.id, outs(), `waiting for the workers of endpoint ${ep.id} failed: ${reason}`);
    }
    if (ready() < want) {
      throw this.o.notReady(
        ep.id,
        outs(),
        `endpoint ${ep.id} has ${ready()} of ${want} workers ${READY_WORKER_STATUSES.join(" or ")} after ` +
          `${settings.readyTimeoutSeconds} s; it is kept in state and the next \`pulumi up\` waits again ` +
          "(raise readyTimeoutSeconds, or set waitForWorkers: false)",
      );
    }
    return outs();
  }

  private price(ep: RestEndpoint): Promise<Partial<LocalSettings>> {
    return this.o.workerPrice({ gpuIds: (ep.gpu?.pools ?? []).join(",") } as WireEndpoint);
  }

  private async workers(id: string): Promise<{ status: string }[] | undefined> {
    try {
      return [...(await this.o.client().serverless.workers(id, this.opts())).workers];
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  private async find(id: string): Promise<RestEndpoint | undefined> {
    try {
      return await this.o.client().serverless.get(id, this.opts());
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  private opts(): { signal?: AbortSignal } {
    return this.o.signal ? { signal: this.o.signal } : {};
  }
}

function gone(name: string, id: string): Error {
  return new Error(
    `ServerlessEndpoint ${JSON.stringify(name)} (${id}) no longer exists on the platform; run \`pulumi refresh\` ` +
      "to forget it, then `pulumi up` to make a new one",
  );
}
