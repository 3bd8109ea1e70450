import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The platform's public REST v2 contract, read where the project's authorities live
 * (`../shared/spec/` beside the repository, as CI places it), never from a copy that could
 * drift from it.
 */
export const CONTRACT_PATH = join(__dirname, "../../../shared/spec/public-v2-openapi.json");

export type Json = any;

let cached: Json | undefined;

export function loadContract(): Json {
  cached ??= JSON.parse(readFileSync(CONTRACT_PATH, "utf8"));
  return cached;
}
