/**
 * A stack's outputs as `pulumi up` prints them after an update: the program's exports, resolved
 * against the stack's state. The example's program runs once more, in this process, under
 * Pulumi's mocks that answer each resource with its id and outputs from the state (the engine's
 * part when it runs the program for real); its exports are then awaited. Secrets print as
 * `[secret]`, as the CLI prints them.
 */
import * as path from "node:path";
import type { EngineStack } from ".";

export interface OutputsOptions {
  project: string;
  stack: EngineStack;
  config: Record<string, string>;
  secretKeys: string[];
}

type Output = { apply<U>(f: (v: unknown) => U): unknown; isSecret: Promise<boolean> };

/** A stack's outputs by export name: each value once known, and whether it is secret. */
export type StackOutputs = Record<string, { value: unknown; secret: boolean }>;

/** The value of an export, or of an Output, once known; a function of the program that failed (a smoke test's job) rejects. */
async function settle(pulumi: typeof import("@pulumi/pulumi"), value: unknown): Promise<{ value: unknown; secret: boolean }> {
  const out = pulumi.output(value) as unknown as Output & { promise(): Promise<unknown> };
  const resolved = await out.promise();
  return { value: resolved, secret: await out.isSecret };
}

/** Runs `programFile` under mocks backed by `stack`'s state and returns its exports, resolved. */
export async function stackOutputs(programFile: string, opts: OutputsOptions): Promise<StackOutputs> {
  const pulumi: typeof import("@pulumi/pulumi") = require(require.resolve("@pulumi/pulumi", { paths: [path.dirname(programFile)] }));
  const state = [...opts.stack.resources.values()];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        const live = state.find((r) => r.urn.endsWith(`::${args.type}::${args.name}`));
        return { id: live?.id ?? `${args.name}-id`, state: live?.outputs ?? args.inputs };
      },
      call: (args) => args.inputs,
    },
    opts.project,
    opts.stack.stack,
    false,
  );
  pulumi.runtime.setAllConfig(opts.config, opts.secretKeys);
  // The program's own modules afresh (another stack's config, another run).
  const dir = path.dirname(programFile);
  for (const key of Object.keys(require.cache)) if (key.startsWith(dir + path.sep) && !key.includes(`${path.sep}node_modules${path.sep}`)) delete require.cache[key];
  const exports = require(programFile) as Record<string, unknown>;
  const out: Record<string, { value: unknown; secret: boolean }> = {};
  for (const [name, value] of Object.entries(exports)) if (name !== "__esModule") out[name] = await settle(pulumi, value);
  return out;
}

/** The outputs as the CLI prints them: `Outputs:`, then one `    name: value` line each, by name. */
export function formatOutputs(outputs: StackOutputs): string {
  const names = Object.keys(outputs).sort();
  const width = Math.max(0, ...names.map((n) => n.length));
  const show = (o: { value: unknown; secret: boolean }) => (o.secret ? "[secret]" : o.value === undefined ? "undefined" : JSON.stringify(o.value));
  return ["Outputs:", ...names.map((n) => `    ${n.padEnd(width)}: ${show(outputs[n]!)}`)].join("\n");
}
