/*
 * Delete what other objects may still use (a network volume, a registry credential, a
 * template), written once for every kind. The platform answers such a DELETE with 409 while a
 * pod, an endpoint or a template uses the object. Pulumi deletes the users in the same stack
 * first, but users made outside the stack, or ones still shutting down, hold it a little
 * longer: delete waits for them, bounded by the resource's `deleteWaitSeconds`, and then fails
 * naming each user, so the message says what to remove.
 */
import { z } from "zod";
import { type ApiError, type Clock, ConflictError, NotFoundError } from "../../client";

/** How long delete waits, by default, for the users of an object to be gone. */
export const DEFAULT_DELETE_WAIT_SECONDS = 120;
/** Upper bound of `deleteWaitSeconds`: a wait longer than an hour is a stuck deployment. */
export const MAX_DELETE_WAIT_SECONDS = 3600;
/** How often delete looks again for the users, by default, in ms. */
export const DEFAULT_IN_USE_POLL_MS = 5000;

const waitRule = `deleteWaitSeconds must be from 0 to ${MAX_DELETE_WAIT_SECONDS}`;

/** The `deleteWaitSeconds` input of every kind that waits for its users on delete. */
export const deleteWaitSecondsSchema = z
  .number({ error: "deleteWaitSeconds must be a number of seconds" })
  .int("deleteWaitSeconds must be a whole number of seconds")
  .min(0, waitRule)
  .max(MAX_DELETE_WAIT_SECONDS, waitRule)
  .optional();

/** One object that still uses what is being deleted, as the failure names it. */
export interface InUseHolder {
  /** What it is, singular: `pod`, `endpoint`, `template`. */
  kind: string;
  id: string;
  name: string;
  /** Its status when it has one (a pod's `RUNNING`). */
  status?: string;
}

/** What {@link deleteWhenUnused} needs to know of one object and its kind. */
export interface DeleteWhenUnusedOptions {
  /** The kind as a user reads it: `network volume`, `registry credential`. */
  what: string;
  id: string;
  /** The object's name, when state knows it. */
  name?: string;
  /** How the users use it, as a past participle: `mounted`, `used`. */
  verb: string;
  /** How long to wait for the users to go, in ms. */
  waitMs: number;
  /** How often to look again for the users, in ms. */
  pollIntervalMs: number;
  clock: Clock;
  signal?: AbortSignal;
  /** The DELETE: throws `ConflictError` while in use, `NotFoundError` once gone. */
  remove: (signal?: AbortSignal) => Promise<void>;
  /** The objects that use it now, as far as the platform lists them. */
  holders: (signal?: AbortSignal) => Promise<InUseHolder[]>;
  /** What the user can do about a holder, e.g. `Terminate the pod(s), or remove the mount`. */
  remedy: string;
  /**
   * Whether a refusal of `remove` means "still in use". @default a ConflictError (409, as
   * the platform answers); a kind whose contract writes another status adds it here.
   */
  inUse?: (err: unknown) => boolean;
}

/** `deleteWaitSeconds` (or its default) in ms. */
export function deleteWaitMs(deleteWaitSeconds: number | undefined): number {
  return 1000 * (deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS);
}

/**
 * DELETE the object; on 409 look for its users every `pollIntervalMs` and DELETE again once
 * none is listed, until `waitMs` has passed; then fail naming those still there. A 404 at any
 * point means it is already gone, which is what delete wants.
 */
const isConflict = (err: unknown): boolean => err instanceof ConflictError;

export async function deleteWhenUnused(o: DeleteWhenUnusedOptions): Promise<void> {
  const interval = Math.max(1, o.pollIntervalMs);
  const deadline = o.clock.now() + o.waitMs;
  // The deadline ends the wait; the bound on rounds keeps the loop finite even under a clock
  // that does not advance.
  const maxRounds = Math.ceil(o.waitMs / interval) + 2;
  let holders: InUseHolder[] = [];
  let conflict: ApiError | undefined;
  for (let round = 0; round < maxRounds; round++) {
    // While a listed user is still there, a DELETE would only answer 409 again.
    if (holders.length === 0) {
      try {
        await o.remove(o.signal);
        return;
      } catch (err) {
        if (err instanceof NotFoundError) return;
        if (!(o.inUse ?? isConflict)(err)) throw err;
        conflict = err as ApiError;
      }
    }
    const left = deadline - o.clock.now();
    if (left <= 0) break;
    await o.clock.sleep(Math.min(interval, left), o.signal);
    holders = await o.holders(o.signal);
  }
  if (holders.length === 0) holders = await o.holders(o.signal);
  throw inUseError(o, holders, conflict);
}

/** The failure after the wait: each user named, or the platform's word when none is listed. */
export function inUseError(
  o: Pick<DeleteWhenUnusedOptions, "what" | "id" | "name" | "verb" | "waitMs" | "remedy">,
  holders: readonly InUseHolder[],
  conflict?: ApiError,
): Error {
  const label = o.name ? `${o.id} ("${o.name}")` : o.id;
  const waited = `${Math.round(o.waitMs / 1000)} s`;
  if (holders.length === 0) {
    return new Error(
      `${o.what} ${label} could not be deleted: the platform still reports it in use after ${waited} ` +
        `(${conflict?.detail ?? "409 Conflict"}), though nothing listed uses it. Try again shortly.`,
    );
  }
  return new Error(
    `${o.what} ${label} is still ${o.verb} by ${describeHolders(holders)} after waiting ${waited}. ` +
      `${o.remedy}, then run the deletion again (deleteWaitSeconds sets how long delete waits).`,
  );
}

/** `pod p1 ("a", RUNNING), endpoint e1 ("b")`, one group per kind in the order first seen. */
export function describeHolders(holders: readonly InUseHolder[]): string {
  const byKind = new Map<string, InUseHolder[]>();
  for (const h of holders) byKind.set(h.kind, [...(byKind.get(h.kind) ?? []), h]);
  return [...byKind]
    .map(([kind, hs]) => {
      const each = hs.map((h) => `${h.id} ("${h.name}"${h.status ? `, ${h.status}` : ""})`).join(", ");
      return `${kind}${hs.length > 1 ? "s" : ""} ${each}`;
    })
    .join(" and ");
}
