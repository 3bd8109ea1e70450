// Where the plugin runs, what it is configured with, and a program to run through it.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { captureProgramFile, type Registration } from "./capture";

const ROOT = path.resolve(__dirname, "../..");

/**
 * The project directory the plugin runs in, as the engine runs it in the program's directory:
 * the quickstart example, whose node_modules links this package by name.
 */
export const PROJECT_DIR = path.resolve(__dirname, "../../examples/quickstart");
export const PROJECT = "quickstart";
/** Stack config keys the engine marks secret in Configure. */
export const SECRET_KEYS = ["computeplatform:apiKey"];

/** A compiled user program declaring Pods from stack config (`test:pods`); the package is loaded by name. */
export const POD_PROGRAM = path.join(__dirname, "programs/pod-program.js");

/**
 * {@link POD_PROGRAM} run as the language host runs it, declaring `pods` (logical name to Pod
 * arguments) in the quickstart project with `config` as the stack's config.
 */
export function capturePods(pods: Record<string, Record<string, unknown>>, config: Record<string, string>, stack = "dev"): Promise<Registration[]> {
  return captureProgramFile(POD_PROGRAM, {
    cwd: PROJECT_DIR,
    project: PROJECT,
    stack,
    config: { ...config, "test:pods": JSON.stringify(pods) },
    secretKeys: SECRET_KEYS,
  });
}

/**
 * A user's Pulumi project in a new folder under the system's temporary one: the package and the
 * SDK resolved by name, as after `npm install` (links to this repository and its `@pulumi` and
 * `@types`), and a tsconfig of its `index.ts`. The caller removes the folder.
 */
export function userProject(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  mkdirSync(path.join(dir, "node_modules"));
  symlinkSync(ROOT, path.join(dir, "node_modules/pulumi-computeplatform"), "dir");
  symlinkSync(path.join(ROOT, "node_modules/@pulumi"), path.join(dir, "node_modules/@pulumi"), "dir");
  symlinkSync(path.join(ROOT, "node_modules/@types"), path.join(dir, "node_modules/@types"), "dir");
  const compilerOptions = { strict: true, target: "es2020", module: "nodenext", esModuleInterop: true, skipLibCheck: true, types: ["node"] };
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["index.ts"] }));
  return dir;
}

/**
 * The environment of a TypeScript program run as `pulumi up` runs it: through Pulumi's own
 * loader, transpiled only (`PULUMI_NODEJS_TRANSPILE_ONLY`) unless `typeCheck`.
 */
export function typescriptProgramEnv(typeCheck = false): Record<string, string> {
  const nodeOptions = [process.env.NODE_OPTIONS, `--require ${JSON.stringify(path.join(__dirname, "pulumi-typescript.js"))}`].filter(Boolean).join(" ");
  return { NODE_OPTIONS: nodeOptions, PULUMI_NODEJS_TRANSPILE_ONLY: typeCheck ? "false" : "true" };
}
