// Template's plan, pure: replace-versus-update, and the template on the wire both ways (the
// create and PATCH bodies, the outputs, what still uses a template).
import type { Endpoint as WireEndpoint, Pod as WirePod, Template as WireTemplate, TemplateCreateParams, TemplateUpdateParams } from "../../client";
import { canonical } from "../lifecycle/applied";
import type { InUseHolder } from "../lifecycle/in-use";
import type { StepEffects } from "../lifecycle/step-line";
import { CONTAINER_KEYS } from "../inputs/template-ref";
import { DEFAULT_DELETE_WAIT_SECONDS, type TemplateInputs, type TemplateOutputs } from "./schema";

/** Fields the platform keeps, in the order of the contract's Template; all of them PATCH can change. */
export const PLATFORM_FIELDS = ["name", "image", "args", "disk", "mounts", "ports", "env", "registry", "serverless", "public", "category"] as const;
export type PlatformField = (typeof PLATFORM_FIELDS)[number];

/** What moving from the old outputs to the new inputs takes. */
export interface TemplatePlan {
  /** Properties that force a new template. */
  replaces: string[];
  /** Properties that change in place (PATCH, or only in state for `deleteWaitSeconds`). */
  updates: string[];
}

/** Whether the field's new input differs from what the platform holds; an unknown (preview) is never what it holds, so it differs. */
function differs(field: PlatformField, olds: Partial<TemplateOutputs>, news: Partial<Record<keyof TemplateInputs, unknown>>): boolean {
  const next = news[field];
  // disk left out is the platform's choice: what it has is kept (a PATCH cannot "unset" it).
  // Stryker disable next-line ConditionalExpression: the checked inputs leave out only disk and mounts, and a left-out mount is a replace or nothing (planTemplateChange)
  if (field === "disk" && next === undefined) return false;
  const prev = field === "mounts" ? (olds.mounts ?? {}) : olds[field];
  return canonical(prev) !== canonical(field === "mounts" ? (next ?? {}) : next);
}

/**
 * Replace-versus-update as a pure function of (old outputs, new inputs). Every field of the
 * contract's UpdateTemplateRequest changes in place through PATCH, `serverless` included. The
 * one change PATCH cannot make is dropping the persistent mount (TemplateMounts: a left-out or
 * empty `mounts` keeps the mount), so that replaces the template. A value unknown at preview
 * counts as changed, so the preview shows the worst case.
 */
export function planTemplateChange(olds: Partial<TemplateOutputs>, news: Partial<Record<keyof TemplateInputs, unknown>>): TemplatePlan {
  const updates: string[] = PLATFORM_FIELDS.filter((f) => differs(f, olds, news));
  const replaces: string[] = [];
  const nextMounts = news.mounts as TemplateInputs["mounts"] | string | undefined;
  // A mounts that is no object is left out or unknown at preview (the worst case: dropped).
  const dropsMount = olds.mounts?.persistent !== undefined && (typeof nextMounts !== "object" || nextMounts.persistent === undefined);
  if (dropsMount) replaces.push("mounts");
  if ((olds.deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS) !== (news.deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS)) updates.push("deleteWaitSeconds");
  return { replaces, updates: replaces.length > 0 ? [] : updates };
}

/** The create body: every platform field the program settled on. */
export function createBody(inputs: TemplateInputs): TemplateCreateParams {
  const body: TemplateCreateParams = {
    name: inputs.name,
    image: inputs.image,
    args: inputs.args,
    ports: inputs.ports,
    env: inputs.env,
    registry: inputs.registry,
    serverless: inputs.serverless,
    public: inputs.public,
    category: inputs.category,
    // Left out, the platform's choice (JSON drops an undefined field).
    disk: inputs.disk,
  };
  if (inputs.mounts?.persistent) body.mounts = { persistent: inputs.mounts.persistent };
  return body;
}

/** The PATCH body: the changed fields; undefined when nothing the platform keeps changed. */
export function updateBody(olds: TemplateOutputs, news: TemplateInputs): TemplateUpdateParams | undefined {
  const changed = PLATFORM_FIELDS.filter((f) => differs(f, olds, news));
  const all = createBody(news) as Record<string, unknown>;
  const body: Record<string, unknown> = {};
  for (const f of changed) if (all[f] !== undefined) body[f] = all[f];
  return Object.keys(body).length === 0 ? undefined : (body as TemplateUpdateParams);
}

export function outputsOf(t: WireTemplate, deleteWaitSeconds: number | undefined): TemplateOutputs {
  return {
    id: t.id,
    name: t.name,
    image: t.image,
    args: t.args,
    disk: t.disk,
    mounts: t.mounts.persistent ? { persistent: { size: t.mounts.persistent.size, path: t.mounts.persistent.path } } : {},
    ports: [...t.ports],
    env: { ...t.env },
    registry: t.registry,
    serverless: t.serverless,
    public: t.public,
    category: t.category,
    deleteWaitSeconds: deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS,
  };
}

/** What uses template `id`: endpoints that run it, and pods made from it that are not TERMINATED. */
export function templateUsers(id: string, endpoints: readonly WireEndpoint[], pods: readonly WirePod[]): InUseHolder[] {
  return [
    ...endpoints.filter((e) => e.templateId === id).map((e) => ({ kind: "endpoint", id: e.id, name: e.name ?? "" })),
    ...pods.filter((p) => p.template === id && p.status !== "TERMINATED").map((p) => ({ kind: "pod", id: p.id, name: p.name, status: p.status })),
  ];
}


/**
 * What a Template's changes do, for the step's line (lifecycle/step-line.ts): every update but
 * deleteWaitSeconds (which only the provider reads) is a PATCH; on a serverless template a change
 * of what the workers run (CONTAINER_KEYS) makes a release on every endpoint bound to it, which
 * rolls their workers, a new env value as much as a new variable (the release names the variables,
 * never their values). A template runs nothing itself: its replacement or delete loses no data,
 * only its id (what names it through this resource's id follows a replacement).
 */
export function templateStepEffects(olds: Partial<TemplateOutputs>, _news: Partial<Record<keyof TemplateInputs, unknown>>): StepEffects {
  return {
    noRequest: ["deleteWaitSeconds"],
    restarts: [],
    rollsUsers: olds.serverless === true ? [...CONTAINER_KEYS] : [],
    replaced: { lost: "its id (what names it through this resource's id follows the new one)", destroysData: false },
    deleted: { lost: "the template (it runs nothing itself)", destroysData: false },
  };
}
