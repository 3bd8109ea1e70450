import { z } from "zod";
import { type FieldIssue, formatIssue, PlatformError, ResponseValidationError } from "./errors";
import { fieldIssues } from "./validate";

/**
 * Lists read record by record. The platform's list holds every record of the account, some made
 * by other programs, other keys, or a newer platform (a pod status or GPU manufacturer this
 * release does not know, a number out of range): one such record must not fail the list for
 * every caller, and must not look absent either (a refresh would drop it from state, a create's
 * look-up would make a second one). So a list answers the records it can read, in order, and
 * carries the others in `unreadable`, each with its id and name where the record has them and
 * the fields that broke the contract.
 */

/** A record of a list answer that the client could not read. */
export interface UnreadableRecord {
  /** Its place in the platform's answer (0-based). */
  readonly index: number;
  /** Its `id`, when the record has a string one. */
  readonly id: string | undefined;
  /** Its `name`, when the record has a string one. */
  readonly name: string | undefined;
  /** The fields that broke the contract, relative to the record (e.g. `status`). */
  readonly issues: readonly FieldIssue[];
}

/** A list answer: the records the client could read, plus those it could not in `unreadable`. */
export type Listed<T> = T[] & { readonly unreadable: readonly UnreadableRecord[] };

/** `items` as a list answer with `unreadable` beside them. */
export function listed<T>(items: T[], unreadable: readonly UnreadableRecord[] = []): Listed<T> {
  return Object.defineProperty(items, "unreadable", { value: unreadable, enumerable: false }) as Listed<T>;
}

/** The unreadable records of a list answer (none for a plain array). */
export function unreadableOf(list: readonly unknown[]): readonly UnreadableRecord[] {
  const u = (list as { unreadable?: unknown }).unreadable;
  return Array.isArray(u) ? (u as UnreadableRecord[]) : [];
}

/** The unreadable record with `id` in a list answer, if any. */
export function unreadableRecord(list: readonly unknown[], id: string): UnreadableRecord | undefined {
  return unreadableOf(list).find((r) => r.id === id);
}

/** The error a read of one unreadable record raises: the fields that broke the contract, named. */
export function unreadableError(record: UnreadableRecord, method: string, url: string, what: string): ResponseValidationError {
  const where = record.id !== undefined ? `${what} ${JSON.stringify(record.id)}` : `${what} at index ${record.index}`;
  return new ResponseValidationError(method, url, where, [...record.issues]);
}

/**
 * A look-up by name after an ambiguous create, among the records of `list` matching `pick`.
 * An unreadable record of that name may be the object just made: the look-up cannot say it
 * was not made, so it fails rather than let a second create run.
 */
export function findReadable<T>(
  list: readonly T[],
  name: string,
  pick: (item: T) => boolean,
  older: ReadonlySet<string> = new Set(),
): T | undefined {
  const found = list.filter(pick).at(-1);
  if (found !== undefined) return found;
  const odd = unreadableOf(list).find((r) => (r.name === name || r.name === undefined) && !(r.id !== undefined && older.has(r.id)));
  if (odd) {
    const named = odd.name === undefined ? "without a readable name" : `named ${JSON.stringify(name)}`;
    throw new PlatformError(
      `the list holds a record ${named} that cannot be read (index ${odd.index}: ` +
        `${odd.issues.map(formatIssue).join("; ")}), so whether it is the one just made is unknown`,
    );
  }
  return undefined;
}

/**
 * The look-up of a create that knows the ids listed before it began (`seenBefore`): the one
 * record matching `pick` that was not there then. Two such records (another program made one of
 * the same name meanwhile) cannot be told apart by a list, whose order the platform does not
 * promise: it fails rather than guess. An unreadable record that is new fails it as well.
 */
export function findNew<T extends { id: string }>(
  list: readonly T[],
  name: string,
  pick: (item: T) => boolean,
  seenBefore: ReadonlySet<string>,
): T | undefined {
  const found = list.filter((item) => !seenBefore.has(item.id) && pick(item));
  if (found.length > 1) {
    throw new PlatformError(
      `${found.length} records named ${JSON.stringify(name)} appeared since the create began (${found.map((f) => f.id).join(", ")}), ` +
        "so which one it made is unknown",
    );
  }
  return found[0] ?? findReadable(list, name, () => false, seenBefore);
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** Each of `raw` read with `schema`: the readable ones in order, the rest in `unreadable`. */
export function readRecords<S extends z.ZodType>(schema: S, raw: readonly unknown[]): Listed<z.infer<S>> {
  const items: z.infer<S>[] = [];
  const unreadable: UnreadableRecord[] = [];
  raw.forEach((value, index) => {
    const parsed = schema.safeParse(value);
    if (parsed.success) {
      items.push(parsed.data);
      return;
    }
    // Object() of null or undefined is an empty object, of a string or number its wrapper: none has an id.
    const rec = Object(value) as Record<string, unknown>;
    unreadable.push({ index, id: str(rec.id), name: str(rec.name), issues: fieldIssues(parsed.error, value) });
  });
  return listed(items, unreadable);
}

/**
 * The schema of a list field whose records are read one by one ({@link readRecords}): the
 * field must be an array, each record that breaks `schema` goes to `unreadable`.
 */
export function recordsOf<S extends z.ZodType>(schema: S) {
  return z.array(z.unknown()).transform((raw) => readRecords(schema, raw));
}
