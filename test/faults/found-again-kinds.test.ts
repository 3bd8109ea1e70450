// A create takes only what it made (lifecycle/find-again.ts), for every kind, through Pulumi's
// own dynamic-provider plugin against the emulator over real HTTP: one program, two stacks (dev
// and prod) on one account, with given names; prod is up, a person made an object of the same
// name by hand, and dev's first create meets one 5xx (the platform made nothing). Dev must make
// its own object, and its destroy must leave prod's and the hand-made one alone. The same for a
// kept object (retainOnDelete) whose logical name returns. npm test holds the pod's first
// scenario (test/engine/stack-promotion.test.ts); these ten went to test:faults, where the
// fault suites are, when npm test passed five minutes. The plugin loads dist/: run `npm run build`
// before this file alone.
import { devMakesItsOwn, foundAgainKinds, foundAgainRigForFile, keptIsNeverTaken, SCENARIO_BOUND_MS } from "../helpers/found-again";

const env = foundAgainRigForFile("cp_sentinel_found_again_kinds_7a3c");
const KINDS = foundAgainKinds(env);

test.each(KINDS.filter((k) => k.label !== "Pod").map((k) => [k.label, k] as const))(
  "%s: after one 5xx on dev's create, dev makes its own, and its destroy leaves prod's and a hand-made one alone",
  (_label, kind) => devMakesItsOwn(env, kind),
  SCENARIO_BOUND_MS,
);

test.each(KINDS.filter((k) => k.label !== "Pod").map((k) => [k.label, k] as const))(
  "%s: a kept object (retainOnDelete) whose logical name returns is never taken by a create that met a 5xx",
  (_label, kind) => keptIsNeverTaken(env, kind),
  SCENARIO_BOUND_MS,
);
