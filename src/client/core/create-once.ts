import { AmbiguousRequestError, type PlatformError } from "./errors";
import { backoffMs } from "./retry";
import { isAmbiguous, type Transport } from "./transport";

/**
 * A create that never makes two objects. `attempt` retries only where the server provably
 * did nothing (429, connection never made). After an ambiguous failure (connection dropped
 * after sending, timeout, 5xx) the object is looked up by name before anything else: found,
 * it is the result; not found, the server did not create it and one more create is safe.
 * Bounded by `maxRetries` creates.
 */
export async function createOnce<T>(input: {
  transport: Transport;
  what: string;
  name: string;
  attempt: () => Promise<T>;
  lookup: () => Promise<T | undefined>;
  signal?: AbortSignal;
  /** Values of the create's body that must not reach the error (write-only credentials). */
  writeOnly?: readonly string[];
}): Promise<T> {
  const { transport, what, name, signal } = input;
  const { maxRetries, clock, random, backoff, logger } = transport.options;
  for (let n = 1; ; n++) {
    let failure: PlatformError;
    try {
      return await input.attempt();
    } catch (err) {
      if (!isAmbiguous(err)) throw err;
      failure = err as PlatformError;
    }
    let found: T | undefined;
    try {
      found = await input.lookup();
    } catch (lookupError) {
      if (signal?.aborted) throw signal.reason;
      throw new AmbiguousRequestError(what, name, failure, transport.sanitize(lookupError, input.writeOnly));
    }
    if (found !== undefined) {
      logger?.debug(transport.redact(`computeplatform: ${what} "${name}" found by name after ${failure.name}; not creating again`));
      return found;
    }
    // Not there: the failed create did nothing, so the failure itself is the answer once the budget is spent.
    if (n > maxRetries) throw failure;
    await clock.sleep(backoffMs(n, random, backoff), signal);
  }
}
