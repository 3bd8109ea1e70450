/**
 * What a ServerlessEndpoint holds in state (its outputs), for both APIs.
 */
import type { EndpointField } from "../../client";

type SavedField = Exclude<EndpointField, "type">;
type ApiKind = "graphql" | "rest";
/** A REST-managed endpoint's container as read back (schema.ts's ContainerInput, every field present). */
type ContainerInput = { image: string; args: string; disk: number; ports: string[]; env: Record<string, string>; registry: string | null };

/**
 * One worker of an endpoint, as read back.
 *
 * @group Resource outputs
 */
export interface EndpointWorkerOutput {
  /** `STARTING`, `RUNNING`, or `EXITED` while draining. */
  desiredStatus: string;
}

/**
 * What a ServerlessEndpoint holds in state: the endpoint as read back, plus the wait settings.
 *
 * @group Resource outputs
 */
export interface ServerlessEndpointOutputs {
  /** The endpoint's name. */
  name: string;
  /** GPU tier of the workers. */
  gpuIds: string;
  /** Serverless template of the workers; null for a REST-managed endpoint (REST does not show its bound template). */
  templateId: string | null;
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
  /** GPUs per worker; null when the platform reports none. */
  gpuCount: number | null;
  /** A job's limit in ms (0: none); null when the platform reports none. */
  executionTimeoutMs: number | null;
  /** The workers when last read. */
  pods: EndpointWorkerOutput[];
  /**
   * The addresses a client sends jobs to: `run` and `runSync` of a queue-based endpoint
   * (`{serverlessUrl}/v2/{id}/run`, `/runsync`); over REST the platform's `requestUrls` as it
   * answers them (`base` for a load-balancing endpoint). Absent over GraphQL for a
   * load-balancing endpoint (its paths are the worker's), and in state of 0.2.0 and earlier
   * until the next update or refresh.
   */
  requestUrls?: EndpointRequestUrls;
  /** `rest` for an endpoint managed over REST v2; absent over GraphQL. */
  api?: ApiKind;
  /** A REST-managed endpoint's container, as read back (every field present). */
  container?: Required<ContainerInput>;
  /** A REST-managed endpoint's preferred data centers. */
  dataCenterIds?: string[];
  /** @default true */
  waitForWorkers: boolean;
  /** @default 600 */
  readyTimeoutSeconds: number;
  /** @default 600 */
  drainTimeoutSeconds: number;
  /** @default true */
  waitForRollout: boolean;
  /** @default 1800 */
  rolloutTimeoutSeconds: number;
  /**
   * The endpoint's configuration version on the platform when last read (its `endpointVersion`):
   * each save that changes the endpoint, and each change of its bound template, makes a new one.
   * Absent in state of 0.2.0 and earlier until the next update.
   */
  version?: number | null;
  /** Its rollout when last read: how far the latest version has reached the workers. */
  rollout?: EndpointRolloutOutput;
  /** What the workers of the Template behind `templateId` run, as last applied (inputs/template-ref.ts). */
  template?: unknown;
  /** The saved fields the program declared: removing one sends the platform's default (ENDPOINT_FIELD_DEFAULTS, inputs/endpoint-defaults.ts). */
  __declared?: SavedField[];
  /**
   * USD per hour at `workersMin` and at `workersMax` workers, one worker priced at its first GPU
   * tier (the tier's highest catalog price); absent when the catalog prices no GPU type of that tier.
   */
  hourlyCost?: { min: number; max: number };
  /** The price of one worker of the first tier, as last read from the catalog (kept for refresh). */
  __workerPrice?: WorkerPrice;
  /** The name last applied (the program's or the auto-name); the live one is `name`. */
  __appliedName?: string;
}

/**
 * An endpoint's rollout, as the platform's releases report it, and which versions serve.
 *
 * @group Resource outputs
 */
export interface EndpointRolloutOutput {
  /** True while a worker runs an older version, or a worker of the latest version is starting or unhealthy. */
  inProgress: boolean;
  /** Ready workers of the latest version. */
  workersOnLatest: number;
  /** Every worker of the endpoint. */
  workersTotal: number;
  /** `round(100 * workersOnLatest / workersTotal)`, 100 with no worker. */
  percentOnLatest: number;
  /**
   * The versions ready workers run (the ones serving jobs), ascending; known when `up` waited
   * for the rollout, else absent. A held rollout serves an older version than `version`.
   */
  serving?: number[];
}

/**
 * Where a client sends an endpoint's jobs.
 *
 * @group Resource outputs
 */
export interface EndpointRequestUrls {
  /** `POST` a job here; the answer is its id, to follow with `status/{jobId}`. */
  run?: string;
  /** `POST` a job here and hold the call for its result (`?wait=` ms). */
  runSync?: string;
  /** A load-balancing endpoint's address (REST only): the worker defines its paths. */
  base?: string;
}

/**
 * One GPU's price in the tier (a worker of gpuCount GPUs costs that many): the tier it was read
 * for, USD per hour.
 *
 * @group Resource outputs
 */
export interface WorkerPrice {
  tier: string;
  usd: number;
}
