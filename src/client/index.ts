/**
 * Typed clients for the Compute Platform's REST v2 API, its GraphQL API (serverless endpoints)
 * and hosted models (`runsync`), with retries, rate-limit pacing and problem+json errors. It
 * imports nothing from Pulumi. Start with {@link ComputePlatform}.
 *
 * @module pulumi-computeplatform/client
 */
import { Billing } from "./billing";
import { Catalog } from "./catalog";
import { ClientContext } from "./context";
import { type Clock, systemClock } from "./core/clock";
import { ConfigurationError, MissingApiUrlError } from "./core/errors";
import { type PacingRegistry, sharedPacing } from "./core/pacing";
import { DEFAULT_BACKOFF } from "./core/retry";
import { DEFAULT_URL, type Logger, Transport } from "./core/transport";
import { Endpoints } from "./endpoints";
import { Jobs } from "./jobs";
import { Models } from "./models";
import { NetworkVolumes } from "./network-volumes";
import { Pods } from "./pods";
import { Registries } from "./registries";
import { ServerlessEndpoints } from "./serverless";
import { Templates } from "./templates";

export type { Billing } from "./billing";
export type { Catalog } from "./catalog";
export type { CreateOptions, RequestOptions } from "./context";
export { type Clock, systemClock } from "./core/clock";
export * from "./core/errors";
export { PacingRegistry, sharedPacing } from "./core/pacing";
export { type Listed, type UnreadableRecord, unreadableOf, unreadableRecord } from "./core/records";
export type { Logger } from "./core/transport";
export { backoffMs, DEFAULT_BACKOFF } from "./core/retry";
export { MIN_NODE_VERSION, requireSupportedNode } from "./core/runtime";
export { DEFAULT_URL, isAmbiguous } from "./core/transport";
export { ENDPOINT_FIELDS, ENDPOINT_READ_FIELDS, type EndpointField, type EndpointRead, type EndpointReadField, type Endpoints } from "./endpoints";
export type { ModelJobStatusOptions, Models, RunSyncOptions } from "./models";
export type { JobRunOptions, JobRunSyncOptions, Jobs, JobStreamOptions } from "./jobs";
export type { NetworkVolumes } from "./network-volumes";
export type { Pods } from "./pods";
export type { Registries } from "./registries";
export type { ServerlessEndpoints } from "./serverless";
export type { Templates } from "./templates";
/** The zod schemas of the wire objects, for callers that validate their own data. */
export * as schemas from "./schemas";
/** The one check of `gpuIds` and `locations` strings, for callers that validate before the client does. */
export { GPU_TIERS, LOCATIONS, validateGpuIds, validateLocations } from "./schemas/endpoints";
export { WORKER_STATUSES } from "./schemas/serverless";
export type {
  BillingAmounts,
  BillingBucketSize,
  BillingQueryParams,
  BillingRecord,
  BillingResponse,
  AvailabilityLevel,
  CatalogAvailability,
  Cloud,
  Compliance,
  CpuCatalogQuery,
  CpuConfig,
  CpuFlavor,
  CpuType,
  DataCenter,
  DataCenterCatalogQuery,
  DataCenterLookupQuery,
  DataCenterRegion,
  Endpoint,
  EndpointBillingAmounts,
  EndpointBillingRecord,
  EndpointBillingResponse,
  EndpointInput,
  FlashBootType,
  GpuCatalogQuery,
  GpuConfig,
  GpuManufacturer,
  GpuType,
  Mounts,
  ModelJobAnswer,
  MountsParams,
  Myself,
  NetworkVolume,
  NetworkVolumeBillingAmounts,
  NetworkVolumeBillingQueryParams,
  NetworkVolumeBillingRecord,
  NetworkVolumeBillingResponse,
  NetworkVolumeCreateParams,
  NetworkVolumeUpdateParams,
  Pod,
  PodAction,
  PodBillingAmounts,
  PodBillingQueryParams,
  PodBillingRecord,
  PodBillingResponse,
  PodCreateParams,
  PodGlobalNetworking,
  PodRuntime,
  PodStatus,
  PodUpdateParams,
  Registry,
  RegistryCreateParams,
  EndpointReleases,
  EndpointWorkerRecord,
  EndpointWorkers,
  Release,
  ReleaseDiffEntry,
  ReleaseSource,
  RolloutSummary,
  WorkerStatus,
  RestEndpoint,
  RestEndpointCreateParams,
  RestEndpointType,
  RestEndpointUpdateParams,
  RestFlashBoot,
  RunSyncAnswer,
  RunSyncResponse,
  ServerlessDiscount,
  Template,
  TemplateCategory,
  TemplateCreateParams,
  TemplateMounts,
  TemplateMountsParams,
  TemplateUpdateParams,
  VolumeType,
} from "./schemas";

/** Options of `new ComputePlatform()`. Every setting may be left undefined. */
export interface ComputePlatformOptions {
  /**
   * The API key. Sent as a bearer token (REST, runsync) or the `api_key` query value (GraphQL);
   * never written to an error, a log line or state.
   * @default process.env.COMPUTEPLATFORM_API_KEY
   */
  apiKey?: string;
  /**
   * Base address of REST (`/v2`) and GraphQL (`/graphql`): the platform's API address, or the
   * local emulator's (`http://127.0.0.1:8787` when started with its defaults). There is no
   * built-in default: with neither this nor the environment variable set, the constructor
   * throws a `MissingApiUrlError` naming both, so no request goes to a guessed host.
   * @default process.env.COMPUTEPLATFORM_API_URL
   */
  apiUrl?: string;
  /**
   * Base address of hosted-model calls (`/v2/{id}/runsync`, `/run`, `/status`). Set it when the
   * platform serves hosted models from another host than its API.
   * @default process.env.COMPUTEPLATFORM_SERVERLESS_URL, else `apiUrl` (the emulator serves both at one address)
   */
  serverlessUrl?: string;
  /** Retries after the first attempt, per call. @default 4 */
  maxRetries?: number;
  /** Per-attempt limit for a complete response, in ms. @default 30000 */
  timeoutMs?: number;
  /**
   * The longest single wait (a server-given delay or a pacing hold) the client accepts; a
   * longer one fails the call with the `RateLimitError` instead of hanging. @default 120000
   */
  maxRetryDelayMs?: number;
  /** First backoff ceiling (full jitter), in ms. @default 500 */
  baseDelayMs?: number;
  /** Largest backoff ceiling, in ms. @default 30000 */
  maxBackoffMs?: number;
  /** Time source and sleeper; tests inject a fake one. @default systemClock */
  clock?: Clock;
  /**
   * Rate-limit pacing registry, one budget per API key; `false` turns pacing off.
   * @default sharedPacing (shared by every client in the process)
   */
  pacing?: PacingRegistry | false;
  /** Receives redacted debug lines (method, path, status, attempt). @default none */
  logger?: Logger;
  /** Randomness for backoff jitter, in [0, 1). @default Math.random */
  random?: () => number;
  /** Where settings fall back to. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Why a client without an address refuses to start, and what to set: the platform's address, or the emulator's to try offline. */
export const MISSING_API_URL =
  "No Compute Platform API address: set COMPUTEPLATFORM_API_URL, or pass apiUrl to new ComputePlatform(), to the platform's " +
  `API address; to try it offline, start the local emulator (\`npx computeplatform-emulator\`) and use ${DEFAULT_URL}`;

function baseUrl(value: string, setting: string, env: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new ConfigurationError(`${setting} ${JSON.stringify(value)} is not a URL (set it, or ${env}, to e.g. ${DEFAULT_URL})`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new ConfigurationError(`${setting} must be an http(s) URL, got ${u.protocol} (check ${env})`);
  }
  if (u.search || u.username || u.password) {
    throw new ConfigurationError(`${setting} must be a plain base address without query or credentials (check ${env})`);
  }
  return u.toString().replace(/\/+$/, "");
}

function nonNegativeInt(value: number | undefined, name: string, dflt: number): number {
  if (value === undefined) return dflt;
  if (!Number.isInteger(value) || value < 0) throw new ConfigurationError(`${name} must be a non-negative integer`);
  return value;
}

/**
 * The Compute Platform client: pods, catalog, network volumes, templates, registry
 * credentials and billing over REST, serverless endpoints over GraphQL and REST v2, hosted models over
 * runsync. Auth, retries, pacing, timeouts and
 * redaction live once, in `core/`.
 */
export class ComputePlatform {
  readonly pods: Pods;
  readonly catalog: Catalog;
  readonly networkVolumes: NetworkVolumes;
  readonly templates: Templates;
  readonly registries: Registries;
  readonly billing: Billing;
  /** Serverless endpoints over GraphQL (`saveEndpoint`, `myself`, `deleteEndpoint`). */
  readonly endpoints: Endpoints;
  /** The same serverless endpoints over REST v2 (`/v2/serverless`), GraphQL's successor. */
  readonly serverless: ServerlessEndpoints;
  readonly models: Models;
  /** Jobs on the account's own endpoints: run, runSync, status, stream, cancel, retry, purgeQueue, health. */
  readonly jobs: Jobs;
  /** The resolved REST/GraphQL base address. */
  readonly apiUrl: string;
  /** The resolved hosted-model base address. */
  readonly serverlessUrl: string;
  private readonly transport: Transport;

  constructor(options: ComputePlatformOptions = {}) {
    const env = options.env ?? process.env;
    const apiUrl = options.apiUrl || env.COMPUTEPLATFORM_API_URL;
    if (!apiUrl) throw new MissingApiUrlError(MISSING_API_URL);
    this.apiUrl = baseUrl(apiUrl, "apiUrl", "COMPUTEPLATFORM_API_URL");
    this.serverlessUrl = baseUrl(
      options.serverlessUrl || env.COMPUTEPLATFORM_SERVERLESS_URL || this.apiUrl,
      "serverlessUrl",
      "COMPUTEPLATFORM_SERVERLESS_URL",
    );
    // A missing key is reported by the first request, so a client can exist during preview.
    this.transport = new Transport({
      apiKey: options.apiKey || env.COMPUTEPLATFORM_API_KEY || undefined,
      timeoutMs: nonNegativeInt(options.timeoutMs, "timeoutMs", 30_000) || 30_000,
      maxRetries: nonNegativeInt(options.maxRetries, "maxRetries", 4),
      maxRetryDelayMs: nonNegativeInt(options.maxRetryDelayMs, "maxRetryDelayMs", 120_000),
      clock: options.clock ?? systemClock,
      pacing: options.pacing ?? sharedPacing,
      logger: options.logger,
      random: options.random ?? Math.random,
      backoff: {
        baseDelayMs: nonNegativeInt(options.baseDelayMs, "baseDelayMs", DEFAULT_BACKOFF.baseDelayMs),
        maxBackoffMs: nonNegativeInt(options.maxBackoffMs, "maxBackoffMs", DEFAULT_BACKOFF.maxBackoffMs),
      },
    });
    const ctx = new ClientContext(this.transport, this.apiUrl, this.serverlessUrl);
    this.pods = new Pods(ctx);
    this.catalog = new Catalog(ctx);
    this.networkVolumes = new NetworkVolumes(ctx);
    this.templates = new Templates(ctx);
    this.registries = new Registries(ctx);
    this.billing = new Billing(ctx);
    this.endpoints = new Endpoints(ctx);
    this.serverless = new ServerlessEndpoints(ctx);
    this.models = new Models(ctx);
    this.jobs = new Jobs(ctx);
  }

  /** Close the keep-alive connections (a short-lived process need not). */
  close(): Promise<void> {
    return this.transport.close();
  }

  /** Never show the key, even to a debugger's inspector or `console.log(client)`. */
  toJSON(): Record<string, string> {
    return { apiUrl: this.apiUrl, serverlessUrl: this.serverlessUrl };
  }
}
