// Programs under Pulumi's mocks: what a program registers, as the SDK sends it to the engine.
import { execFile } from "node:child_process";
import * as path from "node:path";

const runner: {
  capture(program: () => unknown, opts: CaptureOptions): Promise<Registration[]>;
  stackExports(program: () => unknown, opts: CaptureOptions & { state: LiveResource[] }): Promise<Record<string, { value: unknown; secret: boolean }>>;
} = require("./capture-runner.js");

/** One RegisterResource request, as the SDK sent it (inputs in wire form). */
export interface Registration {
  type: string;
  name: string;
  custom: boolean;
  inputs: Record<string, unknown>;
  options: {
    deleteBeforeReplace: boolean;
    protect: boolean;
    ignoreChanges: string[];
    replaceOnChanges: string[];
    additionalSecretOutputs: string[];
    dependencies: string[];
    /** The engine drops the resource from state without calling Delete. */
    retainOnDelete?: boolean;
    /** Earlier identities (alias specs or URNs): the engine takes the old state found at one of them. */
    aliases?: AliasSpec[];
    /** The `import` option: the id of an existing object the engine reads and records instead of creating. */
    importId?: string;
  };
  /** Set for a `.get` (a ReadResource request): the id read; `inputs` are the properties it sent. */
  read?: string;
}

/** One alias as the SDK registers it: a URN, or a spec whose empty parts mean "as now". */
export interface AliasSpec {
  urn?: string;
  name?: string;
  type?: string;
  stack?: string;
  project?: string;
  parentUrn?: string;
}

export interface CaptureOptions {
  project?: string;
  stack?: string;
  /** Mocks in preview mode. @default false */
  preview?: boolean;
  /** Stack config, full keys (`computeplatform:apiUrl`). */
  config?: Record<string, string>;
  /** Which config keys are secret. */
  secretKeys?: string[];
  /** Where the program's own `@pulumi/pulumi` is resolved from. @default process.cwd() */
  cwd?: string;
  /** Extra environment of the program process (`captureProgramFile` only). */
  env?: Record<string, string | undefined>;
}

/**
 * Run a program function in this process under `setMocks`; returns the custom resources'
 * registrations (the stack resource is left out). Runs after jest's transform, so a function
 * defined in a test file serializes as the transformed text; use `captureProgramFile` when the
 * exact compiled text matters.
 */
export async function captureProgram(program: () => unknown, opts: CaptureOptions = {}): Promise<Registration[]> {
  const regs = await runner.capture(program, opts);
  return regs.filter((r) => r.custom);
}

/**
 * Run a compiled program file (CommonJS) in a child `node`, the way the language host runs it:
 * no test transform, cwd = its directory unless given, so `__provider` is the exact text
 * `pulumi up` would store.
 */
export async function captureProgramFile(file: string, opts: CaptureOptions = {}): Promise<Registration[]> {
  const regs = (await runProgramFile(file, opts)).registrations as Registration[];
  return regs.filter((r) => r.custom);
}

/** A resource of a stack's state as the program's mocks answer it during an up. */
export interface LiveResource {
  type: string;
  name: string;
  id: string;
  outputs: Record<string, unknown>;
}

/**
 * Run a program file in a child `node` under mocks backed by a stack's state (`state`), as the
 * engine runs it during an up once those resources exist, and return its exports, settled.
 */
export async function programExportsFile(file: string, state: LiveResource[], opts: CaptureOptions = {}): Promise<Record<string, { value: unknown; secret: boolean }>> {
  return (await runProgramFile(file, { ...opts, state, exports: true } as CaptureOptions)).outputs as Record<string, { value: unknown; secret: boolean }>;
}

/**
 * Run a program function in this process under mocks backed by a stack's state (as
 * {@link programExportsFile} does a file) and return its exports, settled, with whether each is
 * secret: what `pulumi stack output` would show in plain text.
 */
export async function programExports(program: () => unknown, state: LiveResource[], opts: CaptureOptions = {}): Promise<Record<string, { value: unknown; secret: boolean }>> {
  return runner.stackExports(program, { ...opts, state });
}

/** capture-runner.js in child mode: its one JSON line. */
async function runProgramFile(file: string, opts: CaptureOptions): Promise<Record<string, unknown>> {
  const cwd = opts.cwd ?? path.dirname(file);
  const script = path.join(__dirname, "capture-runner.js");
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      [script, path.resolve(file), JSON.stringify({ ...opts, env: undefined, cwd })],
      { cwd, env: { ...process.env, ...opts.env }, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 },
      (err, out, errOut) => (err ? reject(new Error(`program ${file} failed: ${errOut || err.message}`)) : resolve(out)),
    );
  });
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
}
