// Where the plugin runs, what it is configured with, and a program to run through it.
import * as path from "node:path";
import { captureProgramFile, type Registration } from "./capture";

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
