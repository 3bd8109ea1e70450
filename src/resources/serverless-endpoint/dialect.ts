/**
 * What the endpoint's one lifecycle (provider.ts) asks of an API. GraphQL (graphql.ts) and REST
 * v2 (rest.ts) each answer every step in their own requests, so the create with its recovery,
 * the update, the drain and the delete are written once, and neither API can miss a step the
 * other has.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { Clock, ComputePlatform, CreateOptions } from "../../client";
import type { SharedList } from "../lifecycle/shared-list";
import type { LocalSettings } from "./plan";
import type { EndpointInputs, ServerlessEndpointOutputs } from "./schema";

export type EndpointClient = Pick<ComputePlatform, "endpoints" | "serverless" | "templates"> & Partial<Pick<ComputePlatform, "catalog" | "serverlessUrl">>;

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

/** An endpoint's worker bounds as the platform has them now. */
export interface Bounds {
  min: number;
  max: number;
}

/** What every dialect is built with. */
export interface DialectContext {
  client: () => EndpointClient;
  clock: Clock;
  signal?: AbortSignal;
  pollIntervalMs: number;
  maxPollIntervalMs: number;
  /** One worker's catalog price for the first tier of `gpuIds`, for the cost outputs. */
  workerPrice: (gpuIds: string | undefined) => Promise<Partial<LocalSettings>>;
}

/** One API's requests for each step of the lifecycle; `E` is an endpoint as that API lists it. */
export interface Dialect<E extends { id: string; name: string }> {
  /** The API's shared list of endpoints (per client): the look before a create, reads and waits share it. */
  sharedList(): SharedList<E>;
  /** Every endpoint of the account, a fresh list. */
  list(): Promise<E[]>;
  /** Send the create, named `name` (the pending name while the create runs). */
  create(inputs: EndpointInputs, name: string, opts: CreateOptions): Promise<E>;
  /** Whether `e` matches what a create of `inputs` named `name` sent. */
  isOurs(inputs: EndpointInputs, name: string): (e: E) => boolean;
  /** Its type as listed, when the API tells. */
  typeOf(e: E): string | undefined;
  /** The outputs of an endpoint as listed (the baseline of a take-over). */
  outputs(e: E, settings: LocalSettings, type: string): ServerlessEndpointOutputs;
  /** After a write: the outputs once its minimum workers are ready (EndpointNotReadyError keeps the id). */
  settle(e: E, settings: LocalSettings, type: string): Promise<ServerlessEndpointOutputs>;
  /** Give a finished create's endpoint its own name; only the name changes. (The lifecycle fences reads after each write.) */
  rename(e: E, inputs: EndpointInputs): Promise<void>;
  /** The changes of a program, as an update (the wait included). */
  update(id: string, olds: ServerlessEndpointOutputs, news: EndpointInputs, settings: LocalSettings): Promise<ServerlessEndpointOutputs>;
  /** A refresh's read; undefined when gone. */
  read(id: string, props: Partial<ServerlessEndpointOutputs> | undefined, settings: LocalSettings): Promise<{ props: ServerlessEndpointOutputs; inputs: Record<string, unknown> } | undefined>;
  diff(olds: Record<string, any>, news: Record<string, any>): pulumi.dynamic.DiffResult;
  /** Why an update of `olds` to `news` has a rollout to wait for (plan.ts rolloutReasons); none when nothing rolls. */
  rolls(olds: Record<string, any>, news: Record<string, any>): string[];
  /** Why this API may not adopt endpoint `id`, beyond the lifecycle's rules; undefined when it may. */
  adoptRefusal?(id: string): Promise<string | undefined>;
  /** The fields an update from `olds` to `news` sends, in the resource's names (what an adoption's preview names). */
  changes(olds: Record<string, any>, news: Record<string, any>): string[];
  /** The drain's read: the endpoint now, undefined when gone. */
  current(id: string, deadline: number): Promise<E | undefined>;
  boundsOf(e: E): Bounds;
  /** Save the worker bounds `to` of `e` as just read (the drain's scale-down, or putting them back). */
  scale(e: E, knownType: string | undefined, to: Bounds): Promise<void>;
  /** Delete an endpoint at 0/0 (ConflictError when its workers were raised meanwhile, NotFoundError when gone). */
  remove(id: string): Promise<void>;
  /** This process changed endpoint `id`: reads must not take an older list for now. */
  wrote(id: string): void;
}

export function goneError(name: string, id: string): Error {
  return new Error(
    `ServerlessEndpoint ${JSON.stringify(name)} (${id}) no longer exists on the platform; run \`pulumi refresh\` ` +
      "to forget it, then `pulumi up` to make a new one",
  );
}

/** Stops a loop that would otherwise run on with a clock that does not advance. */
export const MAX_POLLS = 10_000;
