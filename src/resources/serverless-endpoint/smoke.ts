/**
 * A smoke test a Pulumi program can run after its endpoints are up: one hosted-model job
 * (`POST {serverlessUrl}/v2/{id}/runsync`, followed with `status-sync` while it runs) during
 * `pulumi up`, none during `pulumi preview`, which must not spend money or depend on the
 * platform answering.
 */
import * as pulumi from "@pulumi/pulumi";
import { ComputePlatform, ModelJobFailedError, ModelJobInProgressError } from "../../client";

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
  /** The hosted model endpoint to call, e.g. `sdxl-turbo`. */
  endpointId: pulumi.Input<string>;
  /** The `input` object of the call; for an image model `prompt`, `width` and `height`. */
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
   * The client to call with.
   * @default a client from stack config (`computeplatform:apiKey`, `computeplatform:apiUrl`,
   *   `computeplatform:serverlessUrl`), then the environment
   */
  client?: Pick<ComputePlatform, "models">;
}

/** @group Serverless smoke test */
export interface RunSyncSmokeTestResult {
  /** The job id the platform gave the call. */
  id: string;
  /** `COMPLETED` on success. */
  status: string;
  /** `output.image_url` of an image model; null when the model returns none. */
  imageUrl: string | null;
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
 * Call a hosted model once during `pulumi up` and return what it answered. During a preview
 * nothing is sent and the result is unknown. A failed call fails the deployment with the
 * client's (redacted) error, which is what a smoke test is for.
 *
 * ```ts
 * const smoke = runSyncSmokeTest({
 *   endpointId: "sdxl-turbo",
 *   input: { prompt: "a lighthouse", width: 64, height: 64 },
 *   dependsOn: [endpoint.id],
 * });
 * export const imageUrl = smoke.imageUrl;
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
 * or is still running at the deadline fails the deployment, saying what happened.
 */
export async function smokeCall(
  client: Pick<ComputePlatform, "models">,
  endpointId: string,
  input: Record<string, unknown>,
  timeoutMs?: number,
): Promise<RunSyncSmokeTestResult> {
  const what = `smoke test of model ${endpointId} failed`;
  let answer;
  try {
    answer = await client.models.runSync(endpointId, input, { deadlineMs: timeoutMs });
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
  const imageUrl = answer.output?.image_url;
  return { id: answer.id, status: answer.status, imageUrl: typeof imageUrl === "string" ? imageUrl : null };
}
