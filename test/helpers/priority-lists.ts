// Issue 14 #8: the ONE table of `gpuIds` and `locations` strings that the client, the
// resources and the emulator must accept and refuse alike (one allowed
// value or a comma-separated list of distinct allowed values in priority order, no spaces;
// `locations` may also be empty, meaning any region).

export interface PriorityListCase {
  field: "gpuIds" | "locations";
  value: string;
  ok: boolean;
  /** Why: what the case checks. */
  reason: string;
}

const accept = (field: PriorityListCase["field"], value: string, reason: string): PriorityListCase => ({ field, value, ok: true, reason });
const refuse = (field: PriorityListCase["field"], value: string, reason: string): PriorityListCase => ({ field, value, ok: false, reason });

export const PRIORITY_LIST_CASES: readonly PriorityListCase[] = [
  accept("gpuIds", "ADA_24", "one tier"),
  accept("gpuIds", "ADA_24,AMPERE_24", "two tiers in priority order"),
  accept("gpuIds", "AMPERE_24,ADA_24", "the same tiers in the other order (order is the priority)"),
  accept("gpuIds", "AMPERE_16,AMPERE_24,ADA_24,AMPERE_48,ADA_48_PRO,AMPERE_80,ADA_80_PRO", "every tier"),
  refuse("gpuIds", "", "no tier at all"),
  refuse("gpuIds", "ADA_24, AMPERE_24", "a space after the comma"),
  refuse("gpuIds", " ADA_24", "a leading space"),
  refuse("gpuIds", "ADA_24 ", "a trailing space"),
  refuse("gpuIds", "ADA_24,,AMPERE_24", "an empty item"),
  refuse("gpuIds", "ADA_24,", "a trailing comma"),
  refuse("gpuIds", ",ADA_24", "a leading comma"),
  refuse("gpuIds", "ADA_24,ADA_24", "a tier twice"),
  refuse("gpuIds", "ada_24", "tiers are upper case"),
  refuse("gpuIds", "RTX_4090", "not a tier"),
  refuse("gpuIds", "ADA_24;AMPERE_24", "another separator"),
  refuse("gpuIds", "NVIDIA GeForce RTX 4090", "a GPU type id is not a tier"),
  accept("locations", "US", "one location"),
  accept("locations", "US,CZ", "two locations in priority order"),
  accept("locations", "CZ,FR,GB,NO,RO,US", "every location"),
  accept("locations", "", "empty means any region"),
  refuse("locations", "US, CZ", "a space after the comma"),
  refuse("locations", " US", "a leading space"),
  refuse("locations", "US,US", "a location twice"),
  refuse("locations", "US,", "a trailing comma"),
  refuse("locations", "us", "locations are upper case"),
  refuse("locations", "DE", "not an allowed location"),
  refuse("locations", "US;CZ", "another separator"),
];
