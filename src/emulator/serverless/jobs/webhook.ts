// A job's webhook: the job's final answer POSTed once to a loopback address, never following a
// redirect (the loopback rule holds for the address called, and a 3xx would send the answer
// wherever the first hop points). The result is kept on the job for the console.
import { isLoopback } from "./envelope";
import type { Job } from "./job";

/** Calls kept for a test to await; older ones are dropped past this many. */
const KEPT_CALLS = 1000;

export class Webhooks {
  /** Webhook calls in flight (a test may await them). */
  readonly calls: Promise<void>[] = [];

  /** Sends `answer` to the job's webhook and records the outcome on the job. */
  deliver(job: Job, answer: unknown): void {
    const url = job.webhook!;
    if (!isLoopback(url)) {
      job.webhookResult = "not called: the emulator calls loopback addresses only";
      return;
    }
    job.webhookResult = "calling";
    const body = JSON.stringify(answer);
    const call = fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body, redirect: "manual", signal: AbortSignal.timeout(10_000) }).then(
      async (res) => {
        await res.body?.cancel();
        job.webhookResult = res.status >= 300 && res.status < 400 ? `call failed: answered ${res.status}, a redirect (not followed)` : `called: ${res.status}`;
      },
      (err: unknown) => {
        job.webhookResult = `call failed: ${err instanceof Error ? err.message : String(err)}`;
      },
    );
    this.calls.push(call);
    if (this.calls.length > KEPT_CALLS) this.calls.splice(0, this.calls.length - KEPT_CALLS);
  }
}
