/**
 * Where an endpoint's saved field goes when a program that declared it stops declaring it: the
 * platform's defaults (workersMin 0 is scale-to-zero, an empty locations any region,
 * networkVolumeId null none; FLASHBOOT is the option, OFF its absence; one GPU per worker; a job
 * limit of 300000 ms). workersMax goes to 0 too: workers declared away must stop running and
 * billing. idleTimeout, scalerType and scalerValue have no platform default: removing one is
 * refused at check.
 *
 * A toolkit's table, not the endpoint kind's own: the endpoint sends these, and the stack's cost
 * prices what they leave running, and a kind imports no other kind.
 */
export const ENDPOINT_FIELD_DEFAULTS = {
  workersMin: 0,
  workersMax: 0,
  networkVolumeId: null,
  locations: null,
  flashBootType: "OFF",
  gpuCount: 1,
  executionTimeoutMs: 300_000,
} as const;

/**
 * The platform's defaults for a NEW endpoint's workers (the contract's): what it gets when the
 * program leaves them out. The endpoint's create is held to the budgets with them, and the
 * stack's cost prices an endpoint with them; an existing endpoint keeps what it has.
 */
export const ENDPOINT_WORKER_DEFAULTS = { workersMin: 0, workersMax: 3, gpuCount: 1 } as const;
