/*
 * SmokeTest (runSyncSmokeTest's resource): lifecycle -> API calls
 *
 *   check   no request. endpointId a non-empty string, input an object, timeoutMs >= 1000.
 *   diff    no request. A change of what it tests (smoke-plan.ts: the endpoint, its version,
 *           what its workers run, the input, a trigger) -> update, which runs the job again;
 *           none -> no change: the last answer is kept and no paid job is sent.
 *   create  POST {serverlessUrl}/v2/{endpointId}/runsync (+ status-sync while it runs), then
 *   update  GET /v2/endpoints/{id}/workers to tell which release served it (smoke.ts smokeCall).
 *   read    no request: the last answer is what the stack keeps (a refresh sends no paid job).
 *   delete  no request: a job is not an object to delete.
 */
import type * as pulumi from "@pulumi/pulumi";
import { type Clock, type ComputePlatform, systemClock } from "../../client";
import { platform, type ProviderOptions } from "../engine/settings";
import { LOGICAL_NAME_KEY } from "../lifecycle/owner";
import { smokeCall, type RunSyncSmokeTestResult } from "./smoke";
import { smokeReasons } from "./smoke-plan";

type SmokeClient = Pick<ComputePlatform, "jobs"> & Partial<Pick<ComputePlatform, "serverless">>;

/**
 * Dependencies of the provider; tests inject a client, a clock and where its lines go.
 *
 * @group Providers and checks
 */
export interface SmokeTestProviderOptions extends Omit<ProviderOptions<SmokeClient>, "signal"> {
  /** Where the provider's lines go. @default Pulumi's log (the plugin's output, which the engine shows) */
  print?: (line: string) => void;
}

/** What the stack records of the last run: the subject it tested, the answer, when and why it ran. */
export interface SmokeTestOutputs extends Omit<RunSyncSmokeTestResult, "id"> {
  endpointId: string;
  input: Record<string, unknown>;
  /** The job id (the resource's own id is not the job's, which changes at each run). */
  jobId: string;
  /** When the job was sent, ISO 8601. */
  ranAt: string;
  /** Why it ran: `first run`, or what changed since the last run. */
  reason: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** @group Providers and checks */
export class SmokeTestProvider implements pulumi.dynamic.ResourceProvider {
  private readonly client: () => SmokeClient;
  private readonly clock: Clock;
  private readonly print: (line: string) => void;

  constructor(options: SmokeTestProviderOptions = {}) {
    this.client = options.client ?? platform;
    this.clock = options.clock ?? systemClock;
    // Loaded only when no print is given, so a test of the provider needs no Pulumi runtime.
    this.print = options.print ?? ((line) => void (require("@pulumi/pulumi") as typeof pulumi).log.info(line));
  }

  async check(_olds: unknown, news: Record<string, unknown>): Promise<pulumi.dynamic.CheckResult> {
    const failures: pulumi.dynamic.CheckFailure[] = [];
    if (typeof news.endpointId !== "string" || news.endpointId === "") failures.push({ property: "endpointId", reason: "endpointId must be a non-empty string (an endpoint's id or a hosted model's)" });
    if (!isObject(news.input)) failures.push({ property: "input", reason: "input must be an object (the job's `input`)" });
    if (news.timeoutMs !== undefined && news.timeoutMs !== null && !(typeof news.timeoutMs === "number" && news.timeoutMs >= 1000)) {
      failures.push({ property: "timeoutMs", reason: "timeoutMs must be a number of ms, at least 1000" });
    }
    return { inputs: news, failures };
  }

  async diff(_id: string, olds: SmokeTestOutputs & Record<string, unknown>, news: Record<string, unknown>): Promise<pulumi.dynamic.DiffResult> {
    const reasons = smokeReasons(olds, news);
    const name = nameOf(news);
    if (reasons.length > 0) this.print(`smoke test ${name}: runs one paid job on ${String(news.endpointId)} (${reasons.join("; ")})`);
    else this.print(`smoke test ${name}: no job (nothing it tests changed); keeps the answer of job ${olds.jobId}, run at ${olds.ranAt}`);
    return { changes: reasons.length > 0, replaces: [] };
  }

  async create(inputs: Record<string, unknown>): Promise<pulumi.dynamic.CreateResult> {
    const outs = await this.run(inputs, smokeReasons(undefined, inputs));
    return { id: `smoke-${outs.endpointId}`, outs };
  }

  async update(_id: string, olds: SmokeTestOutputs & Record<string, unknown>, news: Record<string, unknown>): Promise<pulumi.dynamic.UpdateResult> {
    return { outs: await this.run(news, smokeReasons(olds, news)) };
  }

  async read(id: string, props?: Record<string, unknown>): Promise<pulumi.dynamic.ReadResult> {
    return { id, props: props ?? {} };
  }

  async delete(): Promise<void> {}

  /** One paid job, said as it is sent; its answer and why it ran become the outputs. */
  private async run(inputs: Record<string, unknown>, reasons: string[]): Promise<SmokeTestOutputs & Record<string, unknown>> {
    const endpointId = inputs.endpointId as string;
    const ranAt = new Date(this.clock.now()).toISOString();
    const { id: jobId, ...answer } = await smokeCall(this.client(), endpointId, inputs.input as Record<string, unknown>, inputs.timeoutMs as number | undefined);
    const reason = reasons.join("; ");
    this.print(`smoke test ${nameOf(inputs)}: ran job ${jobId} on ${endpointId} at ${ranAt} (${reason}): ${answer.status}`);
    return { ...inputs, endpointId, input: inputs.input as Record<string, unknown>, ...answer, jobId, ranAt, reason };
  }
}

function nameOf(inputs: Record<string, unknown>): string {
  return typeof inputs[LOGICAL_NAME_KEY] === "string" ? JSON.stringify(inputs[LOGICAL_NAME_KEY]) : "";
}
