// The baseline of benchmark 1: the provider a first attempt would write. Each pod and each
// endpoint polls its own status (GET /v2/pods/{id}, one `myself` per endpoint) at a fixed
// pace, and a 429 is handled only by waiting the Retry-After it names and sending again. The
// client underneath has pacing off and no retries of its own, so every call it makes and
// every 429 it earns is the loop's own doing.
import { type Clock, type ComputePlatform, type EndpointInput, type PodCreateParams, RateLimitError } from "../src/client";

/** Upper bound of sends of one call: every loop ends even against a server that only says 429. */
const MAX_SENDS = 10_000;

export class NaiveFleet {
  constructor(
    private readonly client: ComputePlatform,
    private readonly clock: Clock,
    /** Pause between two status reads of one resource, in real ms. */
    private readonly pollMs: number,
    private readonly signal: AbortSignal,
  ) {}

  /** `call` again after every 429, after the delay the server named (1 s when it named none). */
  private async retry429<T>(call: () => Promise<T>): Promise<T> {
    for (let send = 1; ; send++) {
      try {
        return await call();
      } catch (err) {
        if (!(err instanceof RateLimitError) || send >= MAX_SENDS) throw err;
        await this.clock.sleep(err.retryAfterMs ?? 1000, this.signal);
      }
    }
  }

  private async pollUntil<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
    for (let poll = 1; ; poll++) {
      await this.clock.sleep(this.pollMs, this.signal);
      const v = await this.retry429(read);
      if (done(v) || poll >= MAX_SENDS) return v;
    }
  }

  async createPod(body: PodCreateParams): Promise<string> {
    const opts = { signal: this.signal };
    const pod = await this.retry429(() => this.client.pods.create(body, opts));
    const last = await this.pollUntil(
      () => this.client.pods.get(pod.id, opts),
      (p) => p.status === "RUNNING" || p.status === "ERROR",
    );
    if (last.status !== "RUNNING") throw new Error(`pod ${pod.id} is ${last.status}`);
    return pod.id;
  }

  async deletePod(id: string): Promise<void> {
    const opts = { signal: this.signal };
    await this.retry429(() => this.client.pods.delete(id, opts));
    await this.pollUntil(
      () => this.client.pods.get(id, opts),
      (p) => p.status === "TERMINATED",
    );
  }

  /** A refresh's read of one pod, one volume, one endpoint: its own request each (what read did before issue 16). */
  readPod(id: string) {
    return this.retry429(() => this.client.pods.get(id, { signal: this.signal }));
  }

  readVolume(id: string) {
    return this.retry429(() => this.client.networkVolumes.get(id, { signal: this.signal }));
  }

  readEndpoint(id: string) {
    return this.retry429(() => this.client.endpoints.get(id, { signal: this.signal }));
  }

  async createEndpoint(input: EndpointInput): Promise<string> {
    const opts = { signal: this.signal };
    const ep = await this.retry429(() => this.client.endpoints.save(input, opts));
    const want = input.workersMin ?? 0;
    await this.pollUntil(
      () => this.client.endpoints.get(ep.id, opts),
      (e) => (e.pods ?? []).filter((w) => w.desiredStatus === "RUNNING").length >= want,
    );
    return ep.id;
  }

  async deleteEndpoint(id: string, input: EndpointInput): Promise<void> {
    const opts = { signal: this.signal };
    await this.retry429(() => this.client.endpoints.save({ ...input, id, workersMin: 0, workersMax: 0 }, opts));
    await this.pollUntil(
      () => this.client.endpoints.get(id, opts),
      (e) => (e.pods ?? []).length === 0,
    );
    await this.retry429(() => this.client.endpoints.delete(id, opts));
  }
}
