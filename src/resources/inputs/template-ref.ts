/*
 * What a program's ServerlessEndpoint learns of the Template behind the `id` output it is given:
 * the Template notes each of its `id` outputs here as it is declared, and the endpoint looks its
 * `templateId` up here, so its check can refuse a pod template at preview. Neither kind imports
 * the other.
 */
import type * as pulumi from "@pulumi/pulumi";

/** What the program knows of the Template behind an `id` output (see {@link templateBehind}). */
export interface TemplateRef {
  /** The Template's logical name in the program. */
  resourceName: string;
  /** Its `serverless` output. */
  serverless: pulumi.Output<boolean>;
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
  return value !== null && typeof value === "object" ? byIdOutput.get(value) : undefined;
}
