// What the platform holds, against what the stacks know; and the faults the emulator injected.
import type { Emulator, EmulatorState } from "../../src/emulator";
import type { MiniEngine } from "./mini-engine";

export interface Audit {
  /** Live pods and endpoints no stack knows about. */
  orphans: string[];
  /** Names carried by more than one live pod (or endpoint). */
  duplicates: string[];
  /** Ids in a stack's state that the platform no longer has. */
  missing: string[];
}

export function livePods(state: EmulatorState) {
  return state.pods.filter((p) => p.status !== "TERMINATED");
}

export function liveEndpoints(state: EmulatorState) {
  return state.endpoints as { id: string; name: string; type?: string }[];
}

/**
 * Compare the emulator's own state with what `stacks` know. `settled`: every operation
 * succeeded, so nothing may be missing. `prefix`: only objects whose name starts with it are
 * this audit's business (stacks running side by side name their resources apart).
 */
export function audit(emu: Emulator, stacks: MiniEngine[], settled: boolean, prefix = ""): Audit {
  const s = emu.state();
  const known = new Set(stacks.flatMap((st) => [...st.knownIds()]));
  const pods = livePods(s).filter((p) => p.name.startsWith(prefix));
  const eps = liveEndpoints(s).filter((e) => e.name.startsWith(prefix));
  const orphans = [...pods.map((p) => `pod ${p.id} "${p.name}" ${p.status}`), ...eps.map((e) => `endpoint ${e.id} "${e.name}"`)].filter(
    (line) => !known.has(line.split(" ")[1]),
  );
  // The old half of a replacement that keeps its name is not a second create: leave it out.
  const leaving = new Set(stacks.flatMap((st) => st.pendingDeletes.map((e) => e.id)));
  const dup = (names: string[]) => names.filter((n, i) => names.indexOf(n) !== i);
  const duplicates = [
    ...dup(pods.filter((p) => !leaving.has(p.id)).map((p) => p.name)).map((n) => `pod "${n}"`),
    ...dup(eps.filter((e) => !leaving.has(e.id)).map((e) => e.name)).map((n) => `endpoint "${n}"`),
  ];
  const liveIds = new Set([...livePods(s).map((p) => p.id), ...liveEndpoints(s).map((e) => e.id)]);
  const missing = settled
    ? stacks.flatMap((st) => [...st.state.values()].filter((e) => !liveIds.has(e.id)).map((e) => `${e.kind} ${e.id} (${e.name})`))
    : [];
  return { orphans, duplicates, missing };
}

/** Faults the emulator injected, by kind, from its own request log. */
export function faultCounts(emu: Emulator): Record<string, number> {
  const out: Record<string, number> = { requests: 0, "429": 0, "5xx": 0, dropped: 0 };
  for (const e of emu.requestLog()) {
    out.requests++;
    if (e.dropped) out.dropped++;
    else if (e.status === 429) out["429"]++;
    else if (e.status >= 500) out["5xx"]++;
  }
  return out;
}
