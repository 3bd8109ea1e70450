// Sign-in slows after repeated failures from one client (its address): five wrong keys are free,
// then each further try waits 1 s, 2 s, 4 s ... up to a minute of the emulator's clock after the
// last failure, answered 429 with Retry-After without looking at the key (so waiting is the only
// way on). Generated keys are long, but a key chosen by hand with --key may not be. A right key
// forgets the address's failures. The emulator's clock, so a test moves it instead of waiting.

/** Wrong keys an address may send before it waits. */
export const FREE_FAILURES = 5;
/** The longest wait, in ms. */
export const MAX_WAIT_MS = 60_000;
/** Addresses remembered at once (the oldest is forgotten first). */
const MAX_CLIENTS = 10_000;

interface Record {
  failures: number;
  /** Emulator ms before which the address may not try again. */
  until: number;
}

export class SignInAttempts {
  private readonly byClient = new Map<string, Record>();

  constructor(private readonly clock: { now(): number }) {}

  /** Ms the client must still wait before a try; 0 when it may try now. */
  waitMs(client: string): number {
    const r = this.byClient.get(client);
    return r ? Math.max(0, r.until - this.clock.now()) : 0;
  }

  failed(client: string): void {
    const r = this.byClient.get(client) ?? { failures: 0, until: 0 };
    r.failures++;
    const over = r.failures - FREE_FAILURES;
    r.until = over >= 0 ? this.clock.now() + Math.min(MAX_WAIT_MS, 1000 * 2 ** over) : 0;
    this.byClient.delete(client);
    this.byClient.set(client, r);
    if (this.byClient.size > MAX_CLIENTS) this.byClient.delete(this.byClient.keys().next().value!);
  }

  succeeded(client: string): void {
    this.byClient.delete(client);
  }
}
