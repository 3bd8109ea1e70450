/*
 * A Pod's create, planned once from the checked inputs before any request: the POST body per
 * GPU choice, the owner mark, and how an existing pod (an earlier try, or one to adopt) becomes
 * the planned one.
 */
import { randomBytes } from "node:crypto";
import type { PodCreateParams } from "../../client";
import { gpuChoices } from "../inputs/check";
import { baseOf, OWNER_TOKEN_KEY, pendingName } from "../lifecycle/owner";
import { type PodPlan, planKnownPodChange } from "./plan";
import type { PodDeclaration, PodOutputs } from "./outputs";
import type { LivePod, PodInputs } from "./schema";
import { STOPPED } from "./status";
import { createBody, declarationFor, podOutputs } from "./wire";

/** What a create needs from the checked inputs, computed once before any request. */
export interface CreatePlan {
  inputs: PodInputs;
  /**
   * The `POST /v2/pods` body (for the first GPU choice), with this create's owner mark in env
   * and the pending name when there is a token.
   */
  body: PodCreateParams;
  /** The GPU types to try, in order (a CPU pod: none); each try's body is `bodyFor(choice)`. */
  gpuChoices: string[];
  bodyFor: (gpuId: string | undefined) => PodCreateParams;
  /** The owner token check() settled on, if any. */
  token?: string;
  /** This create's own mark (`<token>.<8 hex>`): an earlier try of the same token never passes for it. */
  mark?: string;
  /** A replacement diffed in this process: a pod with its token is an earlier try to take over (owner.ts). */
  replacement: boolean;
  /** The pod this one replaces (its id, as `diff` saw it): the engine deletes it once this one exists. */
  replaces?: string;
  /** The declaration kept in state beside the live pod. */
  declaration: PodDeclaration;
}

export function planCreate(inputs: PodInputs, replaces?: string): CreatePlan {
  const token = inputs[OWNER_TOKEN_KEY];
  const base = baseOf("Pod", inputs as unknown as Record<string, unknown>);
  // A replacement's mark also ends with the base token: the stack's cost finds the pod by it (stack-cost/what-runs.ts).
  const mark = token ? `${token}.${randomBytes(4).toString("hex")}${base && base !== token ? `.${base}` : ""}` : undefined;
  // An owned create's pod carries the pending name until the create hands it over (owner.ts).
  const bodyFor = (gpuId: string | undefined) => {
    const body = createBody(inputs, mark, gpuId);
    if (token) body.name = pendingName(inputs.name);
    return body;
  };
  const replacement = token !== undefined && token !== base;
  return {
    inputs,
    body: bodyFor(undefined),
    gpuChoices: inputs.gpu ? gpuChoices(inputs.gpu.id) : [],
    bodyFor,
    declaration: declarationFor(inputs),
    token,
    mark,
    replacement,
    ...(replacement && replaces ? { replaces } : {}),
  };
}

/** How an existing pod (an earlier try, or one to adopt) becomes the planned one: its baseline and the change from it. */
export interface ExistingPlan {
  /** The pod as if this resource had made it, wanting nothing beyond its live values. */
  baseline: PodOutputs;
  change: PodPlan;
}

export function planExisting(pod: LivePod, plan: CreatePlan): ExistingPlan {
  const { inputs } = plan;
  const baseline = podOutputs(
    pod,
    { ...inputs, desiredStatus: STOPPED.has(pod.status) ? "EXITED" : "RUNNING" },
    { ...plan.declaration, envKeys: [], globalNetworking: pod.globalNetworking.enabled, locked: undefined },
  );
  // The planner sees the pod's data center: one outside the allowed ones cannot become this pod.
  return { baseline, change: planKnownPodChange(baseline, inputs) };
}
