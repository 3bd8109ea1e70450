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
