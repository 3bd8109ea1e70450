// The meter: what the platform actually ran, as usage segments (a rate in USD per hour from
// one instant to another, or still open) and one-off charges (a hosted-model call). Pods open
// a segment when they start costing and close it when they stop (EXITED, TERMINATED);
// volumes meter their storage from creation to deletion; a serverless worker (segment id: the
// worker's id, `<endpoint id>-w<n>`) from its start until it leaves. Billing reads nothing else.

import type { StatePart } from "./persistence";

export type Resource = "pod" | "networkVolume" | "endpoint" | "serverless";

/** The cost components of the contract's billing records this emulator fills. */
export type Component = "podGpu" | "podCpu" | "storageStandard" | "storageHighPerformance" | "endpoint" | "serverlessGpu";

export interface Segment {
  resource: Resource;
  id: string;
  component: Component;
  /** USD per hour (a charge: USD at `from`, with `to` equal to `from`). */
  rate: number;
  from: number;
  /** Exclusive end (epoch ms); null while it still runs. */
  to: number | null;
  /** A one-off charge of `rate` USD at `from` instead of a rate over time. */
  charge?: true;
}

/** Segments kept before the oldest closed ones are dropped (billing then under-reports them). */
const MAX_SEGMENTS = 100_000;

export class Meter {
  private segments: Segment[] = [];

  /** Starts metering `id` at `rate` (closing a running segment of it first). */
  open(resource: Resource, id: string, component: Component, rate: number, at: number): void {
    this.close(resource, id, at);
    this.push({ resource, id, component, rate, from: at, to: null });
  }

  /** Stops metering `id`; nothing happens when it is not metered. */
  close(resource: Resource, id: string, at: number): void {
    for (const s of this.segments) if (s.to === null && s.resource === resource && s.id === id) s.to = Math.max(at, s.from);
  }

  running(resource: Resource, id: string): boolean {
    return this.segments.some((s) => s.to === null && s.resource === resource && s.id === id);
  }

  charge(resource: Resource, id: string, component: Component, usd: number, at: number): void {
    this.push({ resource, id, component, rate: usd, from: at, to: at, charge: true });
  }

  /** Segments that overlap [from, to) (charges that fall inside it), as copies. */
  overlapping(from: number, to: number): Segment[] {
    return this.segments
      .filter((s) => (s.charge ? s.from >= from && s.from < to : s.from < to && (s.to === null || s.to > from)))
      .map((s) => ({ ...s }));
  }

  statePart(): StatePart {
    return {
      key: "meter",
      snapshot: () => this.segments,
      restore: (saved) => {
        if (!Array.isArray(saved)) throw new Error("state file: meter must be an array");
        this.segments = (saved as Segment[]).map((s) => ({ ...s }));
      },
    };
  }

  private push(s: Segment): void {
    this.segments.push(s);
    if (this.segments.length > MAX_SEGMENTS) {
      const i = this.segments.findIndex((x) => x.to !== null);
      if (i >= 0) this.segments.splice(i, 1);
    }
  }
}
