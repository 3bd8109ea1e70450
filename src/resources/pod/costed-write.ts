/*
 * A Pod's writes as the budgets see them (cost/guard.ts): a create try with the body it POSTs
 * (each GPU choice of a fallback is one try of the same create), and an update or take-over
 * with the compute the pod keeps and whether it runs afterwards.
 */
import type { PodCreateParams } from "../../client";
import type { CostedWrite } from "../cost/guard";
import { stackOf } from "../lifecycle/owner";
import type { CreatePlan } from "./create-plan";
import type { PodOutputs } from "./outputs";
import type { PodInputs } from "./schema";
import { STOPPED } from "./status";

const stack = (inputs: PodInputs) => stackOf(inputs as unknown as Record<string, unknown>);

/** The create try that POSTs `body`. */
export function podCreateWrite(plan: CreatePlan, body: PodCreateParams): CostedWrite {
  const cloud = body.cloud ?? "SECURE";
  const compute = body.gpu ? `${body.gpu.id} x${body.gpu.count ?? 1}` : body.cpu ? `${body.cpu.id} x${body.cpu.vcpuCount} vCPU` : "no compute";
  return {
    label: `pod ${plan.inputs.name}`,
    change: `create (${compute}, ${cloud}${plan.inputs.desiredStatus === "EXITED" ? ", stopped" : ""})`,
    key: plan.mark ?? `create:pod:${plan.inputs.name}`,
    replaces: plan.replaces,
    stack: stack(plan.inputs),
    compute: {
      kind: "pod",
      gpu: body.gpu ? { id: body.gpu.id, count: body.gpu.count ?? 1 } : undefined,
      cpu: body.cpu,
      cloud,
      // A pod declared stopped runs until its stop: for the minutes of the create, what it runs bills.
      running: true,
    },
  };
}

/** An update (or a take-over) of pod `id` from `olds` to `news`: the same compute, running unless stopped. */
export function podUpdateWrite(id: string, olds: PodOutputs, news: PodInputs): CostedWrite {
  const starts = news.desiredStatus !== "EXITED" && STOPPED.has(olds.status);
  return {
    label: `pod ${news.name}`,
    change: starts ? "start" : "update",
    id,
    stack: stack(news),
    compute: { kind: "pod", gpu: olds.gpu, cpu: olds.cpu, cloud: olds.cloud, running: news.desiredStatus !== "EXITED" },
  };
}
