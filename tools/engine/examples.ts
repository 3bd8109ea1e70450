/**
 * The example programs as the engine harness (tools/engine) sees them: each
 * `examples/<name>/index.ts` run under `setMocks` in a child `node`, compiled by the TypeScript
 * that `pulumi up` would use, with a stack's config; and the registrations' cross-resource
 * inputs resolved the way the engine resolves them. Shared by `npm run demo` and the engine
 * tests of the examples.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { type CaptureOptions, captureProgramFile, type EngineStack, type Registration, UNKNOWN, urnOf } from ".";
import { type LiveResource, programExportsFile } from "./capture";
import { typescriptProgramEnv } from "./project";
import type { StackOutputs } from "./stack-outputs";

export const ROOT = path.resolve(__dirname, "../..");
export const EXAMPLES_DIR = path.join(ROOT, "examples");

// js-yaml is what @pulumi/pulumi itself parses YAML with; resolved through it, no new dependency.
const PULUMI_DIR = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
const yaml: { load(text: string): unknown } = require(require.resolve("js-yaml", { paths: [PULUMI_DIR] }));

export type ExampleName = "quickstart" | "cpu-pod" | "promotion" | "private-image" | "serverless-rest";

export function exampleDir(name: ExampleName): string {
  return path.join(EXAMPLES_DIR, name);
}

/** The project name in `examples/<name>/Pulumi.yaml`. */
export function projectName(name: ExampleName): string {
  const project = yaml.load(fs.readFileSync(path.join(exampleDir(name), "Pulumi.yaml"), "utf8")) as { name?: unknown };
  if (typeof project?.name !== "string") throw new Error(`examples/${name}/Pulumi.yaml has no name`);
  return project.name;
}

/**
 * A stack's config from `examples/<name>/Pulumi.<stack>.yaml`, in the form a program receives
 * it: full keys, text values, lists and maps as JSON text.
 */
export function stackConfig(name: ExampleName, stack: string): Record<string, string> {
  const file = path.join(exampleDir(name), `Pulumi.${stack}.yaml`);
  const doc = yaml.load(fs.readFileSync(file, "utf8")) as { config?: Record<string, unknown> } | undefined;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(doc?.config ?? {})) {
    out[key] = typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
  }
  return out;
}

export interface CaptureExampleOptions {
  /** Stack name the program sees (`pulumi.getStack()`). */
  stack: string;
  /** Stack config, full keys. */
  config: Record<string, string>;
  /** Which config keys are secret. @default ["computeplatform:apiKey"] */
  secretKeys?: string[];
  /** Run as `pulumi preview` runs the program (`isDryRun()` true). @default false */
  preview?: boolean;
  /**
   * Type-check while compiling, as `pulumi up` does by default (with the project's TypeScript,
   * else the 3.8 that @pulumi/pulumi vendors; a few seconds); otherwise transpile only, as with
   * `PULUMI_NODEJS_TRANSPILE_ONLY=true`.
   * @default false
   */
  typeCheck?: boolean;
}

/** Run `examples/<name>/index.ts` under mocks and return its custom resources' registrations. */
export function captureExample(name: ExampleName, opts: CaptureExampleOptions): Promise<Registration[]> {
  return captureProgramFile(path.join(exampleDir(name), "index.ts"), exampleRun(name, opts));
}

/**
 * Run `examples/<name>/index.ts` as the engine runs it during an up, once `stack`'s resources
 * exist (each answered with its id and outputs from the state), and return its exports,
 * settled: its functions (a smoke test's job) run then.
 */
export function exampleExports(name: ExampleName, stack: EngineStack, opts: Omit<CaptureExampleOptions, "preview">): Promise<StackOutputs> {
  const state: LiveResource[] = [...stack.resources.values()].map((r) => ({ type: r.type, name: r.urn.split("::").at(-1)!, id: r.id, outputs: r.outputs }));
  return programExportsFile(path.join(exampleDir(name), "index.ts"), state, exampleRun(name, opts));
}

/** How an example's program runs: in its folder, TypeScript through Pulumi's own loader. */
function exampleRun(name: ExampleName, opts: CaptureExampleOptions): CaptureOptions {
  return {
    cwd: exampleDir(name),
    project: projectName(name),
    stack: opts.stack,
    preview: opts.preview ?? false,
    config: opts.config,
    secretKeys: opts.secretKeys ?? ["computeplatform:apiKey"],
    env: typescriptProgramEnv(opts.typeCheck),
  };
}

/** The id the harness's mocks give a resource: `<logical name>-id`. */
const mockId = (reg: Registration) => `${reg.name}-id`;

/**
 * The registrations with their inputs read when the engine reaches them. Under mocks a
 * resource's id is `<name>-id`, so a pod that mounts the stack's volume was registered with
 * `volumeId: "data-id"`. The engine instead hands the dependent resource the real id once the
 * volume exists, or an unknown while previewing a volume not made yet. `EngineStack` reads
 * `inputs` as it reaches each resource, in registration order, so the getter resolves against
 * the state at that moment. Only ids are resolved: the examples pass nothing else between
 * resources. A resource being replaced in the same preview keeps its old id here, where the
 * engine would show an unknown.
 */
export function resolvingIds(stack: EngineStack, regs: Registration[], opts: { preview: boolean }): Registration[] {
  const byMockId = new Map(regs.map((r) => [mockId(r), urnOf(stack.stack, stack.project, r.type, r.name)]));
  const resolve = (value: unknown): unknown => {
    if (typeof value === "string" && byMockId.has(value)) {
      const live = stack.resources.get(byMockId.get(value)!);
      if (live) return live.id;
      return opts.preview ? UNKNOWN : value;
    }
    if (Array.isArray(value)) return value.map(resolve);
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]));
    }
    return value;
  };
  return regs.map((reg) => {
    const copy = { ...reg };
    Object.defineProperty(copy, "inputs", { enumerable: true, get: () => resolve(reg.inputs) as Record<string, unknown> });
    return copy;
  });
}
