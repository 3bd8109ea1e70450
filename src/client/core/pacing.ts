import { createHash } from "node:crypto";
import type { Clock } from "./clock";

/**
 * Rate-limit pacing, one budget per API key shared by every client in the process: when a
 * response says a window is exhausted (`r=0`) or a 429 names a delay, every later request
 * with that key waits until the window resets instead of earning a 429. The registry is
 * keyed by a hash of the key, so the key itself is never held here as a visible value.
 */
export class PacingRegistry {
  private readonly resumeAt = new Map<string, number>();

  /** A fingerprint of `apiKey`: what the registry (and a log line) may hold. */
  static keyId(apiKey: string): string {
    return createHash("sha256").update(apiKey).digest("hex").slice(0, 16);
  }

  /** Requests with `keyId` must not start before `atMs` (later resumes win). */
  holdUntil(keyId: string, atMs: number): void {
    const current = this.resumeAt.get(keyId) ?? 0;
    if (atMs > current) this.resumeAt.set(keyId, atMs);
  }

  /** How long a request with `keyId` must wait now, in ms (0 when it may go). */
  waitMs(keyId: string, nowMs: number): number {
    const at = this.resumeAt.get(keyId);
    if (at === undefined) return 0;
    if (at <= nowMs) {
      this.resumeAt.delete(keyId);
      return 0;
    }
    return at - nowMs;
  }

  /** Forget every hold (tests). */
  clear(): void {
    this.resumeAt.clear();
  }
}

/** The process-wide registry every `ComputePlatform` uses unless given another. */
export const sharedPacing = new PacingRegistry();

/** A pacer bound to one key and clock. */
export class Pacer {
  constructor(
    private readonly registry: PacingRegistry,
    private readonly keyId: string,
    private readonly clock: Clock,
  ) {}

  /** The current wait for this key, in ms. */
  pendingMs(): number {
    return this.registry.waitMs(this.keyId, this.clock.now());
  }

  /** Wait out any hold (cancellable); loops because another response may extend it meanwhile. */
  async wait(signal: AbortSignal | undefined, maxWaitMs: number): Promise<void> {
    // Bounded: each pass either returns or sleeps a positive hold, which no one extends forever
    // without the server saying so; the cap below stops a pathological server.
    for (let pass = 0; pass < 8; pass++) {
      const ms = this.pendingMs();
      if (ms <= 0) return;
      await this.clock.sleep(Math.min(ms, maxWaitMs), signal);
    }
  }

  /** Hold this key for `delayMs` from now. */
  hold(delayMs: number): void {
    this.registry.holdUntil(this.keyId, this.clock.now() + delayMs);
  }
}
