/**
 * A smoke test a Pulumi program can run after its endpoints are up: one job on the stack's own
 * endpoint (or on a hosted model), `POST {serverlessUrl}/v2/{id}/runsync` followed with
 * `status-sync` while it runs, during `pulumi up`, and only when what it tests changed (its
 * resource, smoke-provider.ts, keeps the last answer in state); none during `pulumi preview`,
 * which must not spend money or depend on the platform answering.
 */
import * as pulumi from "@pulumi/pulumi";
import { type ComputePlatform, ModelJobFailedError, ModelJobInProgressError, NotFoundError, schemas } from "../../client";
import type { AccountInput } from "../engine/account";
import { accountInput } from "../engine/account-input";
import { shimProvider } from "../engine/shim";
import { LOGICAL_NAME_KEY } from "../lifecycle/owner";
import { accountOfEndpoint, workersRun } from "./workers-run";

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
   * wait for it), or a hosted model such as `sdxl-turbo`. Give `endpoint` instead for the stack's
   * own endpoint, so a new release of it runs the test again.
   */
  endpointId?: pulumi.Input<string>;
  /**
   * The stack's endpoint under test: its `id` is called, and a change of what its workers run
   * (its Template's image, args, disk, ports, registry or env; over REST its `container`) runs
   * the test again. Give `triggers: [endpoint.version]` to run it at every release of the endpoint.
   * @default none: `endpointId` names what is called
   */
  endpoint?: pulumi.Resource & { id: pulumi.Output<string> };
  /**
   * The account the job is sent on, `{ name, apiKey, apiUrl?, serverlessUrl? }` (the key is made
   * secret): its key and its `serverlessUrl` carry the job. An endpoint answers only its own
   * account's jobs, so give the endpoint's account when you call it by `endpointId`. A new name
   * or address runs the test again; a rotated key is recorded with no job.
   * @default the `endpoint`'s own `account` when `endpoint` is given, else the stack's account
   */
  account?: pulumi.Input<AccountInput>;
  /** The `input` object of the job: what the endpoint's worker takes; for an image model `prompt`, `width` and `height`. */
  input: pulumi.Input<ImageModelInput | Record<string, unknown>>;
  /**
   * Values whose change runs the test again though the endpoint and the input did not change
   * (a model's weights version, a date to run it weekly). Only their change counts.
   * @default []
   */
  triggers?: pulumi.Input<unknown>[];
  /**
   * The resource's name in the stack; two smoke tests in one stack need two names.
   * @default "smoke-test"
   */
  name?: string;
  /**
   * Resources the call must wait for (typically the ServerlessEndpoint the smoke test is
   * about), beyond those `endpointId` and `input` already depend on.
   * @default []
   */
  dependsOn?: pulumi.Input<pulumi.Resource>[];
  /**
   * How long the smoke test waits for its job in all, in ms (at least 1000). A cold endpoint's
   * job that outlasts the call's hold is followed (never submitted again) until it finishes or
   * this passes; then the deployment fails naming the job, which runs on. A change of it alone
   * does not run the test again.
   * @default 600000 (10 minutes)
   */
  timeoutMs?: pulumi.Input<number>;
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

/**
 * Send one job to an endpoint during `pulumi up` (the stack's own, once it is up, or a hosted
 * model) and return what it answered, when what it tests changed since its last run: the
 * endpoint (its id and what its workers run), the input or a trigger. Otherwise the stack keeps the last
 * answer and nothing is sent, so an unchanged stack previews and deploys with no paid job.
 * During a preview nothing is sent; a test that will run shows as its resource's create or
 * update, and the provider prints why. A failed call fails the deployment with the client's
 * (redacted) error, which is what a smoke test is for. The result is secret when the input is;
 * in state the job's answer (`output`, `imageUrl`) is always kept secret, since a secret input
 * does not mark what the job returned.
 *
 * ```ts
 * const smoke = runSyncSmokeTest({ endpoint, input: { prompt: "Say hello" } });
 * export const smokeOutput = smoke.output;
 * ```
 *
 * @group Serverless smoke test
 */
export function runSyncSmokeTest(args: RunSyncSmokeTestArgs): pulumi.Output<RunSyncSmokeTestResult> {
  const endpointId = args.endpoint ? args.endpoint.id : args.endpointId;
  if (endpointId === undefined) throw new Error("runSyncSmokeTest: give endpoint (the stack's ServerlessEndpoint) or endpointId (an endpoint's or hosted model's id)");
  const name = args.name ?? "smoke-test";
  const account = args.account ?? (args.endpoint ? accountOfEndpoint(args.endpoint) : undefined);
  const test = new SmokeTest(
    name,
    {
      endpointId,
      account: accountInput(account),
      workers: args.endpoint ? workersRun(args.endpoint) : undefined,
      input: args.input,
      triggers: args.triggers,
      timeoutMs: args.timeoutMs,
      [LOGICAL_NAME_KEY]: name,
    },
    { dependsOn: args.dependsOn, additionalSecretOutputs: ["output", "imageUrl", "account"] },
  );
  const result = pulumi
    .all([test.jobId, test.status, test.output, test.imageUrl, test.workerId, test.release])
    .apply(([id, status, output, imageUrl, workerId, release]) => ({ id, status, output, imageUrl, workerId, release }));
  // Secret when the input is (all() carries its mark), not because state keeps the answer secret.
  return pulumi.all([args.input, pulumi.unsecret(result)]).apply(([, r]) => r);
}

/** The smoke test's record in the stack: what it tested, and what the last run answered. */
class SmokeTest extends pulumi.dynamic.Resource {
  declare readonly jobId: pulumi.Output<string>;
  declare readonly status: pulumi.Output<string>;
  declare readonly output: pulumi.Output<RunSyncSmokeTestResult["output"]>;
  declare readonly imageUrl: pulumi.Output<string | null>;
  declare readonly workerId: pulumi.Output<string | null>;
  declare readonly release: pulumi.Output<number | null>;
  declare readonly ranAt: pulumi.Output<string>;
  declare readonly reason: pulumi.Output<string>;

  constructor(name: string, inputs: Record<string, unknown>, opts: pulumi.CustomResourceOptions) {
    const outputs = ["jobId", "status", "output", "imageUrl", "workerId", "release", "ranAt", "reason"];
    super(shimProvider("smoke-test"), name, { ...Object.fromEntries(outputs.map((k) => [k, undefined])), ...inputs }, opts, "computeplatform", "SmokeTest");
  }
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
