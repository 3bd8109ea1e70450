/*
 * What a program's ServerlessEndpoint learns of the Template behind the `id` output it is given:
 * the Template notes each of its `id` outputs here as it is declared, and the endpoint looks its
 * `templateId` up here, so its check can refuse a pod template at preview, and its diff can show
 * a change of the template that rolls the endpoint's workers. Neither kind imports the other.
 */
import { createHash } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";

/** The container fields of a template that its endpoints' workers run: a change of one rolls them. */
export const CONTAINER_KEYS = ["image", "args", "disk", "ports", "env", "registry"] as const;

/**
 * What the workers run, as the program declares the Template: its container fields at the
 * values the Template's check settles on, with the env's names and a digest of its values (never
 * a value: the platform's releases name env variables, not what they hold). `disk` is absent
 * when the program leaves it to the platform.
 */
export interface TemplateRolls {
  image: string;
  args: string;
  disk?: number;
  ports: string[];
  /** The env variables' names, sorted. */
  env: string[];
  /** sha256 of the env's names and values, so a changed value is a change without the value in state. */
  envDigest: string;
  registry: string | null;
}

/** What the program knows of the Template behind an `id` output (see {@link templateBehind}). */
export interface TemplateRef {
  /** The Template's logical name in the program. */
  resourceName: string;
  /** Its `serverless` output. */
  serverless: pulumi.Output<boolean>;
  /**
   * What its workers run, from the program's arguments (known at preview when they are known;
   * secret when any of them is). Absent for a Template read with `.get`, which the stack never changes.
   */
  rolls?: pulumi.Output<TemplateRolls>;
}

// The `id` output of each Template of this program, to the Template. Weak: a Template
// unreachable from the program is not kept alive by this.
const byIdOutput = new WeakMap<object, TemplateRef>();

/** Notes a Template's `id` output, as the Template is declared. */
export function noteTemplate(idOutput: object, ref: TemplateRef): void {
  byIdOutput.set(idOutput, ref);
}

/** The Template whose `id` output `value` is, if it is one (a derived output is not). */
export function templateBehind(value: unknown): TemplateRef | undefined {
  // A WeakMap answers undefined for a value that is not an object (a string id, null).
  return byIdOutput.get(value as object);
}

/** The fingerprint of settled container fields (the Template's defaults already applied). */
export function templateRolls(c: { image: string; args: string; disk?: number; ports: string[]; env: Record<string, string>; registry: string | null }): TemplateRolls {
  const names = Object.keys(c.env).sort();
  const envDigest = createHash("sha256")
    .update(JSON.stringify(names.map((n) => [n, c.env[n]])))
    .digest("hex")
    .slice(0, 16);
  return { image: c.image, args: c.args, ...(c.disk === undefined ? {} : { disk: c.disk }), ports: [...c.ports], env: names, envDigest, registry: c.registry };
}

/**
 * The fingerprint of a Template's arguments, as an output: unknown while any of them is, secret
 * when any of them is (a secret env value keeps the whole fingerprint out of plain state).
 */
export function rollsOfArgs(args: { image: pulumi.Input<string> } & { [K in "args" | "disk" | "ports" | "env" | "registry"]?: pulumi.Input<any> }): pulumi.Output<TemplateRolls> {
  return pulumi
    .all([args.image, args.args, args.disk, args.ports, args.env, args.registry])
    .apply(([image, a, disk, ports, env, registry]) =>
      templateRolls({ image, args: a ?? "", disk: disk ?? undefined, ports: ports ?? [], env: env ?? {}, registry: registry ?? null }),
    );
}
