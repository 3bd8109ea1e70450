/**
 * The generated check's hold on the step lines (issue 51; src/resources/lifecycle/step-line.ts):
 * the line the preview printed for the walked resource is the one the up printed, and it says
 * what the platform then did, read from the emulator's request log and state:
 *
 * - no line: the engine's `same`;
 * - `no request (recorded in state only: …)`, `no write (up reads it and waits again: …)`: no write;
 * - `updated in place …`: a write, the same id; a pod that ran before and after restarted
 *   exactly when the line says its container restarts; an endpoint's up made a release that
 *   rolls its workers exactly when the line says they roll (a rollout an earlier up left
 *   unfinished makes none); a serverless template's line names the fields for which "every
 *   endpoint running it rolls its workers": exactly the rolling fields of the releases the up
 *   made on an endpoint bound to it (its worker replaced by one of the new version), and none
 *   when the line names none (template.ts's bindUser);
 * - `no request to it; its workers roll …`: no write to it (only a rollout to wait for);
 * - `replaced …`: a new id, the old object gone, `[DESTROYS DATA]` exactly when the old object
 *   held data nothing else keeps (the kind's `holdsData`), and the old one's delete line says
 *   the same;
 * - a destroy's delete line, marked as the replacement's is.
 */
import type { ProviderPlugin, StepOp } from "../../../tools/engine";

/** The kind's word in its lines (`ServerlessEndpoint` for both of the endpoint's walks). */
export const kindWord = (modelName: string): string => modelName.split(" ")[0]!;

const DESTROYS = "[DESTROYS DATA]";

/** The lines the walked resource `logical` printed in `text`, in order. */
export function subjectLines(text: string, kind: string, logical: string): string[] {
  const prefix = `${kind} ${JSON.stringify(logical)}: `;
  return text
    .split("\n")
    .map((l) => l.replace(/^info: \[runtime\] /, ""))
    .filter((l) => l.startsWith(prefix))
    .map((l) => l.slice(prefix.length));
}

/** The delete line of object `id`, if printed in `text`. */
export function deletedLine(text: string, kind: string, id: string): string | undefined {
  return text
    .split("\n")
    .map((l) => l.replace(/^info: \[runtime\] /, ""))
    .find((l) => l.startsWith(`${kind} ${id}: deleted; `));
}

/** The plugin's stdout from `from` on, once `ready` holds of it (lines arrive after the answers they belong to), or after `ms`. */
export async function stdoutOnce(plugin: ProviderPlugin, from: number, ready: (text: string) => boolean, ms = 3_000): Promise<string> {
  const until = Date.now() + ms;
  while (!ready(plugin.stdout.slice(from)) && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
  return plugin.stdout.slice(from);
}

/** What the walk saw the up do to the walked object. */
export interface UpSeen {
  op: StepOp;
  /** Write requests the up sent. */
  writes: number;
  /** Whether the old object held data nothing else keeps (the kind's holdsData of the object before). */
  heldData: boolean;
  /** The pod's container restarted (undefined: the kind or the states cannot tell). */
  restarted?: boolean;
  /** The up made a release that rolls the workers (undefined: not a kind with workers). */
  rolled?: boolean;
  /** The rolling fields of the releases the up made on what was bound to the object (undefined: nothing bound). */
  usersRolled?: string[];
  /** The old object's delete line, for a replacement. */
  deleted?: string;
}

/** The reasons a rolling line gives, but a rollout an earlier up left unfinished (it makes no release). */
function newRolls(line: string): string[] {
  const m = /its workers roll, each replaced by one of the new version \((.*)\); up /.exec(line);
  return m ? m[1]!.split("; ").filter((r) => r !== "the rollout the last up left unfinished") : [];
}

/** The fields a template's line says every endpoint running it rolls for, as the platform's releases name them (`template.<field>`). */
function usersRoll(line: string): string[] {
  const m = /; every endpoint running it rolls its workers \((.*)\)$/.exec(line);
  return m ? m[1]!.split(", ").map((f) => `template.${f}`).sort() : [];
}

/** What a line says a step does, in a word, for the walk's tally of the lines it held (`undefined`: no line, the engine's same or create). */
export function lineSays(line: string | undefined): string {
  if (line === undefined) return "no line";
  if (line.startsWith("replaced")) return line.endsWith(DESTROYS) ? "replaced [DESTROYS DATA]" : "replaced";
  if (line.startsWith("no request (")) return "no request";
  if (line.startsWith("no write (")) return "no write";
  if (line.includes("the container restarts")) return "container restarts";
  if (line.includes("its workers roll, each replaced")) return "its workers roll";
  if (usersRoll(line).length > 0) return "endpoints running it roll";
  return "updated in place";
}

/** Holds the preview's and the up's lines of the walked object to what the up did. */
export function holdStepLines(preview: string[], up: string[], seen: UpSeen): void {
  if (seen.op === "same" || seen.op === "create") {
    expect({ op: seen.op, preview, up }).toEqual({ op: seen.op, preview: [], up: [] });
    return;
  }
  // One line per step, the same in the preview and the up.
  expect({ op: seen.op, preview, up }).toEqual({ op: seen.op, preview: [preview[0]], up: [preview[0]] });
  const line = preview[0]!;
  if (seen.op === "replace") {
    expect(line).toMatch(/^replaced \(/);
    expect({ line, destroys: line.endsWith(DESTROYS), deleted: seen.deleted?.endsWith(DESTROYS) }).toEqual({ line, destroys: seen.heldData, deleted: seen.heldData });
    return;
  }
  expect(line).toMatch(/^(no request|no write|updated in place)/);
  // Each claim beside the line it was read from, so a failure names both.
  const writes = line.startsWith("no request") || line.startsWith("no write (") ? 0 : seen.writes > 0 ? seen.writes : "some";
  expect({ line, writes: seen.writes }).toEqual({ line, writes });
  if (seen.restarted !== undefined) expect({ line, restarted: seen.restarted }).toEqual({ line, restarted: line.includes("the container restarts") });
  if (seen.rolled !== undefined) expect({ line, rolled: seen.rolled }).toEqual({ line, rolled: newRolls(line).length > 0 });
  if (seen.usersRolled !== undefined) expect({ line, usersRolled: [...seen.usersRolled].sort() }).toEqual({ line, usersRolled: usersRoll(line) });
}
