// An endpoint's IN_QUEUE jobs, kept so the replay never looks at all of them for one event: the
// next job a worker takes (low-priority jobs after the rest, oldest first), the first ttl to
// pass and the oldest submission (QUEUE_DELAY's threshold) each come off a heap. A job leaves
// lazily: an entry is stale once its job is no longer IN_QUEUE or was queued again since (its
// `queueMark` moved), and stale entries are dropped when they reach the top or, past twice the
// live count, all at once; so each event costs O(log n) and a replay of n events O(n log n).

/** What the heaps read of a job (job.ts's Job; named here so the two files do not import each other). */
export interface QueuedJob {
  seq: number;
  ttlEnd: number;
  submittedAt: number;
  status: string;
  policy: { lowPriority?: boolean };
  queueMark?: number;
}

interface Entry<Job extends QueuedJob> {
  job: Job;
  mark: number;
}

class Heap<Job extends QueuedJob> {
  private items: Entry<Job>[] = [];

  constructor(private readonly before: (a: Job, b: Job) => boolean) {}

  get length(): number {
    return this.items.length;
  }

  push(e: Entry<Job>): void {
    const a = this.items;
    a.push(e);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(a[i].job, a[p].job)) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }

  /** The first live job, stale entries above it dropped. */
  top(live: (e: Entry<Job>) => boolean): Job | undefined {
    while (this.items.length > 0 && !live(this.items[0])) this.pop();
    return this.items[0]?.job;
  }

  pop(): void {
    const a = this.items;
    const last = a.pop()!;
    if (a.length === 0) return;
    a[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && this.before(a[l].job, a[m].job)) m = l;
      if (r < a.length && this.before(a[r].job, a[m].job)) m = r;
      if (m === i) return;
      [a[i], a[m]] = [a[m], a[i]];
      i = m;
    }
  }

  /** Keeps the live entries only (and heap order: they are pushed again). */
  compact(live: (e: Entry<Job>) => boolean): void {
    const kept = this.items.filter(live);
    this.items = [];
    for (const e of kept) this.push(e);
  }
}

export class WaitingJobs<Job extends QueuedJob> {
  private marks = 0;
  private readonly order = new Heap<Job>((a, b) => Number(!!a.policy.lowPriority) - Number(!!b.policy.lowPriority) < 0 || (!!a.policy.lowPriority === !!b.policy.lowPriority && a.seq < b.seq));
  private readonly ttl = new Heap<Job>((a, b) => a.ttlEnd < b.ttlEnd);
  private readonly age = new Heap<Job>((a, b) => a.submittedAt < b.submittedAt);
  private readonly live = (e: Entry<Job>) => e.job.status === "IN_QUEUE" && e.job.queueMark === e.mark;
  /** IN_QUEUE jobs held (kept by the queue as jobs come and go). */
  size = 0;

  /** A job that has just become IN_QUEUE. */
  add(job: Job): void {
    this.marks += 1;
    job.queueMark = this.marks;
    const e = { job, mark: this.marks };
    this.order.push(e);
    this.ttl.push(e);
    this.age.push(e);
    this.size += 1;
    if (this.order.length > 2 * this.size + 64) for (const h of [this.order, this.ttl, this.age]) h.compact(this.live);
  }

  /** A job that is no longer IN_QUEUE (started, ended, purged): its entries go stale. */
  remove(job: Job): void {
    if (job.queueMark === undefined) return;
    job.queueMark = undefined;
    this.size -= 1;
  }

  /** The job a free worker takes next. */
  next(): Job | undefined {
    return this.order.top(this.live);
  }

  /** The queued job whose ttl passes first. */
  firstTtl(): Job | undefined {
    return this.ttl.top(this.live);
  }

  /** The job queued longest. */
  oldest(): Job | undefined {
    return this.age.top(this.live);
  }
}
