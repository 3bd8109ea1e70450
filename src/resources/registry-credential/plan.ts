// RegistryCredential's plan, pure: replace-versus-update, the credential on the wire, and what
// still uses it. The platform has no update and cannot read the secrets back, so every
// property the platform keeps replaces; only the delete wait changes in place (state only).
import type { Pod as WirePod, Registry as WireRegistry, Template as WireTemplate } from "../../client";
import { DEFAULT_DELETE_WAIT_SECONDS, type InUseHolder } from "../lifecycle/in-use";
import type { StepEffects } from "../lifecycle/step-line";
import type { RegistryCredentialInputs, RegistryCredentialOutputs } from "./schema";

/** What moving from the old outputs to the new inputs takes. */
export interface RegistryCredentialPlan {
  /** Properties that force a new credential (the old one is deleted after, once unused). */
  replaces: string[];
  /** Properties that change in place (in state only). */
  updates: string[];
}

/** The properties the platform keeps, in the order a diff lists them. */
const REPLACING = ["name", "username", "password"] as const;

/**
 * Replace-versus-update as a pure function of (old outputs, new inputs). A value unknown at
 * preview is never what state holds, so it counts as changed: the preview shows the worst case.
 */
export function planRegistryCredentialChange(
  olds: Partial<RegistryCredentialOutputs>,
  news: Partial<Record<keyof RegistryCredentialInputs, unknown>>,
): RegistryCredentialPlan {
  const replaces = REPLACING.filter((k) => olds[k] !== news[k]);
  const oldWait = olds.deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS;
  const updates = oldWait !== (news.deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS) ? ["deleteWaitSeconds"] : [];
  return { replaces: [...replaces], updates: replaces.length > 0 ? [] : updates };
}

/**
 * The outputs: the platform's id and name; the secrets from the inputs or the last state,
 * since no answer of the platform carries them.
 */
export function outputsOf(
  registry: WireRegistry,
  secrets: Partial<Pick<RegistryCredentialOutputs, "username" | "password">> | undefined,
  deleteWaitSeconds: number | undefined,
): Omit<RegistryCredentialOutputs, "id"> {
  return {
    name: registry.name,
    username: secrets?.username as string,
    password: secrets?.password as string,
    deleteWaitSeconds: deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS,
  };
}

/** The pods (not terminated) and templates, among those listed, whose `registry` is `id`. */
export function registryUsers(pods: readonly WirePod[], templates: readonly WireTemplate[], id: string): InUseHolder[] {
  return [
    ...pods
      .filter((p) => p.status !== "TERMINATED" && p.registry === id)
      .map((p) => ({ kind: "pod", id: p.id, name: p.name, status: p.status })),
    ...templates.filter((t) => t.registry === id).map((t) => ({ kind: "template", id: t.id, name: t.name })),
  ];
}

/**
 * What a RegistryCredential's changes do, for the step's line (lifecycle/step-line.ts): the one
 * update, deleteWaitSeconds, sends nothing; a replacement is a new credential, and what names
 * the old one through this resource's id follows it (a pod by an update of `registry`, which
 * restarts its container: the pod's own line says so). A credential holds no data.
 */
export const REGISTRY_CREDENTIAL_STEP_EFFECTS: StepEffects = {
  noRequest: ["deleteWaitSeconds"],
  restarts: [],
  replaced: { lost: "the old credential (what names it through this resource's id follows the new one)", destroysData: false },
  deleted: { lost: "the credential", destroysData: false },
};
