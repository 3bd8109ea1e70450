/**
 * Stack lifecycles under fault profiles, for the fault suite (few, quick) and `npm run soak`
 * (many). Each lifecycle is one stack holding a Pod and a ServerlessEndpoint, taken through
 * create, an in-place update, a replacement, a refresh and a destroy while the emulator
 * injects one profile of faults. A failed operation is run again, as a user runs `pulumi up`
 * again, a bounded number of times; after every operation the emulator's own state is
 * audited against the stack.
 */
import type { Faults } from "../../src/emulator";
import { audit } from "./audit";
import { type Declaration, type Failure, MiniEngine, type OpResult } from "./mini-engine";
import { type Rig, SENTINEL_KEY } from "./rig";

export interface Profile {
  name: string;
  faults: Faults;
  /** The first create's image ends in ERROR; the next `up` declares a fixed image. */
  errorImage?: boolean;
  /** No capacity for the pod's GPU anywhere until the first create has failed on it. */
  noCapacity?: boolean;
}

export const PROFILES: Profile[] = [
  { name: "429 storm", faults: { rate429: 0.35 } },
  { name: "5xx", faults: { rate5xx: 0.25 } },
  { name: "dropped after processing", faults: { dropAfterProcessRate: 0.2 } },
  { name: "slow", faults: { slowMs: 25 } },
  { name: "pod ends in ERROR", faults: { rate5xx: 0.05 }, errorImage: true },
  { name: "no capacity", faults: { rate429: 0.05 }, noCapacity: true },
  { name: "mixed", faults: { rate429: 0.15, rate5xx: 0.1, dropAfterProcessRate: 0.1, slowMs: 5 } },
];

export interface Figures {
  lifecycles: number;
  operations: number;
  failedOperations: number;
  /** Failures by provider call and kind, e.g. "create pod": 3. */
  failuresBy: Record<string, number>;
  podsInError: number;
  noCapacityRefusals: number;
  orphans: string[];
  duplicates: string[];
  missing: string[];
  unclearMessages: string[];
  /** Lifecycles whose stack could not be brought to the goal within the attempts. */
  notConverged: string[];
  /** Every error a failed operation raised, as the provider threw it (the secret scan reads them). */
  errors: unknown[];
}

export function emptyFigures(): Figures {
  return {
    lifecycles: 0,
    operations: 0,
    failedOperations: 0,
    failuresBy: {},
    podsInError: 0,
    noCapacityRefusals: 0,
    orphans: [],
    duplicates: [],
    missing: [],
    unclearMessages: [],
    notConverged: [],
    errors: [],
  };
}

/** How many times an operation is run again before the lifecycle counts as not converged. */
const ATTEMPTS = 8;

/**
 * A failure message a user can act on: says what failed, in words, with no key and no
 * placeholder text of a broken formatter.
 */
export function unclear(f: Failure): string | undefined {
  const m = f.message;
  if (m.trim().length < 12) return "too short";
  if (m.includes(SENTINEL_KEY)) return "contains the API key";
  if (/\[object Object\]|undefined:|: undefined$|NaN/.test(m)) return "placeholder text";
  const says = /pod|endpoint|creat|delet|updat|rate limit|capacity|ERROR|connection|failed|platform|timed out|5\d\d|429/i;
  if (!says.test(m)) return "does not say what failed";
  return undefined;
}

/** A program of one stack at one step of its lifecycle. */
function program(rig: Rig, stack: string, step: "create" | "update" | "replace", image: string, explicitName: boolean): Declaration[] {
  const pod: Record<string, unknown> = {
    image,
    gpu: { id: rig.gpuId, count: step === "replace" ? 2 : 1 },
    env: { MODEL: step === "create" ? "small" : "large", QUOTE: `it's "${stack}" {x}` },
    ports: ["8888/http"],
    waitTimeoutSeconds: 5,
  };
  if (explicitName) pod.name = `${stack}-pod`;
  const endpoint: Record<string, unknown> = {
    name: `${stack}-api`,
    gpuIds: "AMPERE_24",
    templateId: rig.templateId,
    workersMin: 1,
    workersMax: step === "create" ? 1 : 2,
    idleTimeout: step === "create" ? 5 : 30,
    readyTimeoutSeconds: 5,
    drainTimeoutSeconds: 5,
  };
  if (step === "replace") endpoint.type = "LB";
  return [
    { kind: "pod", name: `${stack}-pod`, args: pod },
    { kind: "endpoint", name: `${stack}-api`, args: endpoint },
  ];
}

/** Run `op` until it succeeds or the attempts run out; `between` runs after each failure (the user's fix). */
async function retry(
  fig: Figures,
  rig: Rig,
  engine: MiniEngine,
  prefix: string,
  label: string,
  op: () => Promise<OpResult>,
  between: (f: OpResult) => void = () => {},
): Promise<boolean> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const r = await op();
    fig.operations++;
    const a = audit(rig.emu, [engine], r.ok, prefix);
    fig.orphans.push(...a.orphans.map((line) => `${label}: ${line}`));
    fig.duplicates.push(...a.duplicates.map((line) => `${label}: ${line}`));
    fig.missing.push(...a.missing.map((m) => `${label}: ${m}`));
    if (r.ok) return true;
    fig.failedOperations++;
    if (r.checkFailures) {
      fig.unclearMessages.push(`${label}: unexpected check failures ${JSON.stringify(r.checkFailures)}`);
      return false;
    }
    const f = r.failure!;
    fig.errors.push(f.error);
    const key = `${f.op} ${f.kind}`;
    fig.failuresBy[key] = (fig.failuresBy[key] ?? 0) + 1;
    if (/no capacity/i.test(f.message)) fig.noCapacityRefusals++;
    if (/ERROR/.test(f.message) && f.kind === "pod") fig.podsInError++;
    const why = unclear(f);
    if (why) fig.unclearMessages.push(`${label}: ${why}: ${f.message}`);
    between(r);
  }
  return false;
}

/**
 * One stack's lifecycle under `profile`. Resolves when the stack is destroyed (or could not
 * be); the figures collect what happened.
 */
export async function runLifecycle(rig: Rig, profile: Profile, stack: string, explicitName: boolean, fig: Figures): Promise<void> {
  const engine = new MiniEngine(rig.providers);
  let image = profile.errorImage ? "img/crash:1" : "img/app:1";
  rig.emu.setFaults({
    ...profile.faults,
    errorImages: [/crash/],
    noCapacity: profile.noCapacity ? [{ gpuId: rig.gpuId }] : [],
  });
  const lift = () => {
    // The user's fix after the first failure: capacity comes back, the image is corrected.
    rig.emu.setFaults({ ...profile.faults, errorImages: [/crash/], noCapacity: [] });
    image = "img/app:2";
  };
  const converged =
    (await retry(fig, rig, engine, `${stack}-`, `${stack} create`, () => engine.up(program(rig, stack, "create", image, explicitName)), lift)) &&
    (await retry(fig, rig, engine, `${stack}-`, `${stack} update`, () => engine.up(program(rig, stack, "update", image, explicitName)))) &&
    (await retry(fig, rig, engine, `${stack}-`, `${stack} replace`, () => engine.up(program(rig, stack, "replace", image, explicitName)))) &&
    (await retry(fig, rig, engine, `${stack}-`, `${stack} refresh`, () => engine.refresh()));
  if (!converged) fig.notConverged.push(`${stack} (${profile.name})`);
  // Destroy whatever happened before: nothing may be left behind either way.
  const destroyed = await retry(fig, rig, engine, `${stack}-`, `${stack} destroy`, () => engine.destroy());
  if (!destroyed) fig.notConverged.push(`${stack} destroy (${profile.name})`);
  if (engine.state.size > 0 || engine.pendingDeletes.length > 0) {
    fig.notConverged.push(`${stack}: ${engine.state.size + engine.pendingDeletes.length} resource(s) still in state after destroy`);
  }
  fig.lifecycles++;
}
