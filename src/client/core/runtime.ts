import { UnsupportedRuntimeError } from "./errors";

/**
 * The oldest Node.js the client runs on, as the package's `engines` says (a repository test keeps
 * the two equal). undici, the HTTP client, uses what older versions lack (zlib's zstd, from 22.15):
 * on Node 20 it throws while it loads, "Cannot read properties of undefined (reading 'bind')".
 */
export const MIN_NODE_VERSION = "22.19.0";

/** Whether `version` (`process.versions.node`'s shape, `22.19.0`) is at least {@link MIN_NODE_VERSION}. */
export function supportedNode(version: string): boolean {
  const have = version.split(".").map((part) => Number.parseInt(part, 10));
  const need = MIN_NODE_VERSION.split(".").map(Number);
  for (let i = 0; i < need.length; i++) {
    const h = have[i] ?? 0;
    // Older, or not a number (NaN is neither older nor newer): not supported.
    if (!(h >= need[i])) return false;
    if (h > need[i]) return true;
  }
  return true;
}

const NOTHING_SENT = "no request was sent";

/** Refuses, before any request, a Node.js the client cannot run on. */
export function requireSupportedNode(version: string = process.versions.node): void {
  if (supportedNode(version)) return;
  throw new UnsupportedRuntimeError(
    `the Compute Platform client needs Node.js ${MIN_NODE_VERSION} or newer, and this is Node.js ${version}; ${NOTHING_SENT}. ` +
      "Run it with a newer node (the first on PATH, or the one your tool starts)",
  );
}

/**
 * undici, loaded with the first exchange (a preview that sends nothing never pays for it). A
 * Node.js too old, or a load that fails all the same, is an {@link UnsupportedRuntimeError}:
 * before, the load's TypeError reached callers as a connection cut after sending, so a create
 * that never left was reported as one that "may exist".
 */
export function loadHttpClient(): typeof import("undici") {
  requireSupportedNode();
  try {
    return require("undici") as typeof import("undici");
  } catch (err) {
    throw new UnsupportedRuntimeError(
      `the Compute Platform client's HTTP client (undici) does not load on Node.js ${process.versions.node} ` +
        `(${err instanceof Error ? err.message : String(err)}); ${NOTHING_SENT}`,
      { cause: err },
    );
  }
}
