/**
 * A smoke test a Pulumi program can run after its endpoints are up: one job on the stack's own
 * endpoint (or on a hosted model), `POST {serverlessUrl}/v2/{id}/runsync` followed with
 * `status-sync` while it runs, during `pulumi up`; none during `pulumi preview`, which must not
 * spend money or depend on the platform answering.
 */
import * as pulumi from "@pulumi/pulumi";
import { ComputePlatform, ModelJobFailedError, ModelJobInProgressError, NotFoundError, schemas } from "../../client";

/** The stack-config namespace of `computeplatform:apiKey` and friends (see engine/settings.ts). */
const CONFIG_NAMESPACE = "computeplatform";

/**
 * The `input` of an image model.
 *
 * @group Serverless smoke test
 */
export interface ImageModelInput {
  /** What to draw. */
  prompt: string;
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
}

/** @group Serverless smoke test */
export interface RunSyncSmokeTestArgs {
  /**
   * The endpoint to call: the stack's own (a `ServerlessEndpoint`'s `id`, which makes the call
   * wait for it), or a hosted model such as `sdxl-turbo`.
   */
  endpointId: pulumi.Input<string>;
  /** The `input` object of the job: what the endpoint's worker takes; for an image model `prompt`, `width` and `height`. */
  input: pulumi.Input<ImageModelInput | Record<string, unknown>>;
  /**
   * Resources the call must wait for (typically the ServerlessEndpoint the smoke test is
   * about), beyond those `endpointId` and `input` already depend on.
   * @default []
   */
  dependsOn?: pulumi.Input<unknown>[];
  /**
   * How long the smoke test waits for its job in all, in ms (at least 1000). A cold endpoint's
   * job that outlasts the call's hold is followed (never submitted again) until it finishes or
   * this passes; then the deployment fails naming the job, which runs on.
   * @default 600000 (10 minutes)
   */
  timeoutMs?: pulumi.Input<number>;
  /**
   * The client to call with (its `jobs.runSync`, and `serverless.workers` to tell which release
   * served the job).
   * @default a client from stack config (`computeplatform:apiKey`, `computeplatform:apiUrl`,
   *   `computeplatform:serverlessUrl`), then the environment
   */
  client?: Pick<ComputePlatform, "jobs"> & Partial<Pick<ComputePlatform, "serverless">>;
}

/** @group Serverless smoke test */
export interface RunSyncSmokeTestResult {
  /** The job id the platform gave the call. */
  id: string;
  /** `COMPLETED` on success. */
  status: string;
  /** The job's `output`, as the endpoint's worker returned it (any JSON value); null when it returned none. */
  output: Record<string, unknown> | unknown[] | string | number | boolean | null;
  /** `output.image_url` of an image model; null when the output has none. */
  imageUrl: string | null;
  /** The worker that took the job (the platform's `workerId`); null when the answer names none (a hosted model). */
  workerId: string | null;
  /**
   * The endpoint version (release) that worker runs: the endpoint's latest, or the smoke test
   * fails. Null when the platform does not tell (a hosted model, or a worker no longer listed).
   */
  release: number | null;
}

/** The program's client: stack config first (as the providers' `configure()` reads it), then the environment. */
function clientFromStack(apiKey: string | undefined): ComputePlatform {
  const config = new pulumi.Config(CONFIG_NAMESPACE);
  return new ComputePlatform({
    apiKey,
    apiUrl: config.get("apiUrl") || undefined,
    serverlessUrl: config.get("serverlessUrl") || undefined,
  });
}

/**
 * Send one job to an endpoint during `pulumi up` (the stack's own, once it is up, or a hosted
 * model) and return what it answered. During a preview
 * nothing is sent and the result is unknown. A failed call fails the deployment with the
 * client's (redacted) error, which is what a smoke test is for.
 *
 * ```ts
 * const smoke = runSyncSmokeTest({ endpointId: endpoint.id, input: { prompt: "Say hello" } });
 * export const smokeOutput = smoke.output;
 * ```
 *
 * @group Serverless smoke test
 */
export function runSyncSmokeTest(args: RunSyncSmokeTestArgs): pulumi.Output<RunSyncSmokeTestResult> {
  if (pulumi.runtime.isDryRun()) return pulumi.output(pulumi.unknown as unknown as RunSyncSmokeTestResult);
  // The key is read as a secret so the engine never logs it; the result holds no part of it.
  const apiKey = args.client ? undefined : new pulumi.Config(CONFIG_NAMESPACE).getSecret("apiKey");
  const result = pulumi
    .all([args.endpointId, args.input, apiKey, args.timeoutMs, pulumi.all(args.dependsOn ?? [])])
    .apply(([endpointId, input, key, timeoutMs]) =>
      smokeCall(args.client ?? clientFromStack(key), endpointId, input as Record<string, unknown>, timeoutMs),
    );
  return pulumi.unsecret(result);
}

/**
 * The call itself: one submission (a paid job, never sent twice) that the client follows to
 * its end within `timeoutMs`, its answer reduced to what a stack output wants. A job that fails
 * or is still running at the deadline fails the deployment, saying what happened. The job
 * routes of the client's `jobs` take any output a worker returns (a hosted model's too).
 */
export async function smokeCall(
  client: Pick<ComputePlatform, "jobs"> & Partial<Pick<ComputePlatform, "serverless">>,
  endpointId: string,
  input: Record<string, unknown>,
  timeoutMs?: number,
): Promise<RunSyncSmokeTestResult> {
  const what = `smoke test of endpoint ${endpointId} failed`;
  let answer;
  try {
    // Each hold no longer than the whole budget, when that is shorter than the platform's default hold.
    const hold = schemas.RUNSYNC_WAIT_MS;
    const wait = timeoutMs !== undefined && timeoutMs < hold.default ? Math.max(hold.min, Math.floor(timeoutMs)) : undefined;
    answer = await client.jobs.runSync(endpointId, input, { deadlineMs: timeoutMs, ...(wait !== undefined ? { wait } : {}) });
  } catch (err) {
    if (err instanceof ModelJobFailedError) throw new Error(`${what}: job ${err.jobId} ended ${err.jobStatus}: ${err.jobError}`);
    if (err instanceof ModelJobInProgressError) {
      throw new Error(
        `${what}: job ${err.jobId} was still ${err.jobStatus} after ${err.waitMs} ms (the smoke test's timeoutMs). The job runs on ` +
          "and is paid; it was not sent again. Look at its result on the platform, or raise timeoutMs for a cold endpoint, " +
          "then run `pulumi up` again (which sends one new, paid call).",
      );
    }
    throw err;
  }
  const output = (answer.output ?? null) as RunSyncSmokeTestResult["output"];
  const imageUrl = typeof output === "object" && output !== null ? (output as { image_url?: unknown }).image_url : undefined;
  const workerId = typeof answer.workerId === "string" ? answer.workerId : null;
  const release = workerId === null ? null : await servedBy(client, endpointId, answer.id, workerId);
  return { id: answer.id, status: answer.status, output, imageUrl: typeof imageUrl === "string" ? imageUrl : null, workerId, release };
}

/**
 * The release that served the job: the version of its worker (`listEndpointWorkers`), which must
 * be the endpoint's latest (a job answered by a stale worker says nothing of the new release).
 * Null when the platform cannot tell: no workers list (a hosted model), the worker gone since.
 */
async function servedBy(client: Partial<Pick<ComputePlatform, "serverless">>, endpointId: string, jobId: string, workerId: string): Promise<number | null> {
  if (!client.serverless) return null;
  let listed;
  try {
    listed = await client.serverless.workers(endpointId);
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
  const worker = [...listed.workers].find((w) => w.id === workerId);
  const version = typeof worker?.version === "number" ? worker.version : null;
  const latest = listed.endpointVersion ?? null;
  if (worker && (worker.isStale || (version !== null && latest !== null && version !== latest))) {
    throw new Error(
      `smoke test of endpoint ${endpointId} failed: job ${jobId} was served by worker ${workerId}, which runs release ${version ?? "?"}` +
        `${worker.image ? ` (image ${JSON.stringify(worker.image)})` : ""}, not the endpoint's latest release ${latest ?? "?"}: ` +
        "its rollout was not over. Run `pulumi up` again once it is (a ServerlessEndpoint waits for its rollout unless waitForRollout is false).",
    );
  }
  return version;
}
