/**
 * The fault rig, shared by the fault suite, the bad-input properties, the secret tests and
 * `npm run soak`: an emulator with a sentinel key and compressed waits (`rig.ts`), a small
 * in-process engine (`mini-engine.ts`), the audit of what the platform holds against what the
 * stacks know (`audit.ts`), stack lifecycles under fault profiles (`lifecycles.ts`) and the
 * scan of every surface an error shows for a secret (`scan.ts`).
 */
export { audit, type Audit, faultCounts, liveEndpoints, livePods } from "./audit";
export { emptyFigures, type Figures, PROFILES, type Profile, runLifecycle, unclear } from "./lifecycles";
export { type Declaration, type Failure, MiniEngine, type OpResult, type StateEntry } from "./mini-engine";
export {
  compressedClock,
  CONFIG_SECRETS,
  type Kind,
  PROJECT,
  PROJECT_DIR,
  READ_ONLY_KEY,
  type Rig,
  type RigOptions,
  SENTINEL_KEY,
  stackConfig,
  startPlugin,
  startRig,
  startSentinelEmulator,
} from "./rig";
export { errorSurfaces, placesWith } from "./scan";
