/*
 * What the account runs, priced: every pod and endpoint of the account (of any stack, made by
 * hand or by another program), read in one list per kind and shared by every reader of the
 * process: the stack's cost line, and the budget kept at each write (cost/guard.ts).
 *
 *   GET /v2/pods          the account's pods (a TERMINATED pod is not listed, an EXITED one bills nothing)
 *   GET /v2/serverless    the account's endpoints, whichever API made them (one store): workers and GPUs
 *
 * One plugin process serves one command (`pulumi preview`, `pulumi up`), so a list per process
 * is a list per command, however long the command and however many its writes. A process that
 * lives on (a test driving one plugin through several commands) starts over when the stack's
 * cost is checked again: each command checks it once, before any costed write, unless
 * `--target` or `--exclude` skip it, when the lists of the process's last check stand (the
 * engine starts a plugin per command, so under the CLI there are none).
 *
 * What a write of this process changes after the lists were read is kept beside them (`noted`):
 * the lists say what ran before the command, the notes what the command's own writes made of it.
 */
import type { ComputePlatform } from "../../client";
import { isPendingName, STACK_MARK_ENV } from "../lifecycle/owner";
import { type HourlyRange, perClient, priceBook, type PriceBook, range, usd } from "./prices";

/** A live pod, as far as pricing and owners go. */
export interface AccountPod {
  id: string;
  name: string;
  status: string;
  createdAt: string;
  env: Record<string, string>;
  gpu?: { id: string; count: number } | null;
  cpu?: { id: string; vcpuCount: number } | null;
  cloud: "SECURE" | "COMMUNITY";
}

/** A live endpoint, as far as pricing goes (the GraphQL field names; REST's are mapped to them). */
export interface AccountEndpoint {
  id: string;
  name: string;
  gpuIds: string;
  workersMin?: number | null;
  workersMax?: number | null;
  gpuCount?: number | null;
}

/** What prices a pod or an endpoint, as a write is about to leave it. */
export type Compute =
  | { kind: "pod"; gpu?: { id: string; count: number } | null; cpu?: { id: string; vcpuCount: number } | null; cloud: "SECURE" | "COMMUNITY"; running: boolean }
  | { kind: "endpoint"; gpuIds: string; workersMin: number; workersMax: number; gpuCount: number };

/** One object of the account, priced: who owns it as far as the platform lets anyone tell. */
export interface Spender {
  /** `pod <name>` or `endpoint <name>`. */
  label: string;
  id?: string;
  hourly: HourlyRange;
  /** `<organization>/<project>/<stack>`, when the object carries its stack's mark. */
  stack?: string;
  /** Who owns it, in words: `stack acme/infra/prod`, `no stack (made outside Pulumi)`, ... */
  owner: string;
  /** A create's own key, for the notes of a process's writes (cost/guard.ts). */
  key?: string;
}

const STOPPED = new Set(["EXITED", "TERMINATED"]);
const ZERO: HourlyRange = { min: 0, max: 0 };

/** A pod's owner in words, from its marks. */
function podOwner(p: AccountPod): { stack?: string; owner: string } {
  const stack = p.env?.[STACK_MARK_ENV];
  if (typeof stack === "string" && stack !== "") return { stack, owner: `stack ${stack}` };
  if (typeof p.env?.COMPUTEPLATFORM_OWNER === "string") return { owner: "a stack (made before pods carried their stack's name)" };
  return { owner: "no stack (made outside Pulumi)" };
}

/** The compute of a live pod. */
export function podCompute(p: AccountPod): Compute {
  return { kind: "pod", gpu: p.gpu, cpu: p.cpu, cloud: p.cloud, running: !STOPPED.has(p.status) };
}

/** The compute of a live endpoint (what the platform lists; a field it leaves out is its default). */
export function endpointCompute(e: AccountEndpoint): Compute {
  return { kind: "endpoint", gpuIds: e.gpuIds, workersMin: e.workersMin ?? 0, workersMax: e.workersMax ?? 3, gpuCount: e.gpuCount ?? 1 };
}

/** The hourly price of `c` from the catalog; undefined when the catalog does not price it. */
export async function priceOf(book: PriceBook, c: Compute): Promise<HourlyRange | undefined> {
  if (c.kind === "endpoint") return book.endpoint(c);
  if (!c.running) return ZERO;
  const p = await book.pod({ gpu: c.gpu ?? undefined, cpu: c.cpu ?? undefined, cloud: c.cloud });
  return p === undefined ? undefined : { min: p, max: p };
}

/** A change this process made after the lists were read: to object `id` (an update), or a new object by its key, and what it costs now. */
interface Note {
  id?: string;
  spender: Spender;
}

/** What the account runs, per client: the lists once, the notes of this process's writes. */
export class AccountView {
  private generation: { pods?: Promise<AccountPod[]>; endpoints?: Promise<AccountEndpoint[]> } | undefined;
  // Stryker disable next-line ArrayDeclaration: never read as it starts; the first reader's renew() empties it
  private notes: Note[] = [];

  constructor(private readonly client: () => Partial<Pick<ComputePlatform, "pods" | "serverless" | "catalog">>) {}

  /** Start over: the next reader lists again, and the notes of earlier writes are in those lists. */
  renew(): void {
    this.generation = {};
    this.notes = [];
  }

  private current() {
    if (!this.generation) this.renew();
    return this.generation!;
  }

  /** The account's pods (TERMINATED ones are not listed), one list per command. */
  pods(): Promise<AccountPod[]> {
    const g = this.current();
    const c = this.client();
    g.pods ??= c.pods ? (c.pods.list() as Promise<unknown> as Promise<AccountPod[]>) : Promise.resolve([]);
    g.pods.catch(() => (g.pods = undefined));
    return g.pods;
  }

  /** The account's endpoints, over REST v2 (it lists what either API made), one list per command. */
  endpoints(): Promise<AccountEndpoint[]> {
    const g = this.current();
    const c = this.client();
    g.endpoints ??= c.serverless
      ? c.serverless.list().then((list) =>
          list.map((e) => ({ id: e.id, name: e.name, gpuIds: (e.gpu?.pools ?? []).join(","), workersMin: e.workers.min, workersMax: e.workers.max, gpuCount: e.gpu?.count ?? 1 })),
        )
      : Promise.resolve([]);
    g.endpoints.catch(() => (g.endpoints = undefined));
    return g.endpoints;
  }

  /** Every object of the account with its price, as this process's writes leave it. */
  async spenders(): Promise<Spender[]> {
    const book = priceBook(this.client as () => Pick<ComputePlatform, "catalog">);
    const [pods, endpoints] = await Promise.all([this.pods(), this.endpoints()]);
    const out: Spender[] = [];
    for (const p of pods) {
      if (p.status === "TERMINATED") continue;
      const hourly = (await priceOf(book, podCompute(p))) ?? ZERO;
      out.push({ label: `pod ${p.name}`, id: p.id, hourly, ...podOwner(p) });
    }
    for (const e of endpoints) {
      const hourly = (await priceOf(book, endpointCompute(e))) ?? ZERO;
      out.push({ label: `endpoint ${e.name}`, id: e.id, hourly, owner: isPendingName(e.name) ? "a stack's unfinished create" : "owner unknown (an endpoint carries no stack mark)" });
    }
    // A write of this process after the lists: it replaces what they say of its object.
    const noted = new Set(this.notes.map((n) => n.id));
    return [...out.filter((s) => !noted.has(s.id)), ...this.notes.map((n) => n.spender)];
  }

  /** Records what a write leaves to the object `id` (an object's id, or a create's key); a later note of the same replaces it. */
  note(spender: Spender, id: string | undefined): void {
    this.notes = [...this.notes.filter((n) => id === undefined || n.id !== id), { id, spender }];
  }
}

/** The one view of a client's account in this process: the stack's cost and every write read it. */
export const accountView: (client: () => Partial<Pick<ComputePlatform, "pods" | "serverless" | "catalog">>) => AccountView = perClient((c) => new AccountView(c));

/** The sum of what `spenders` cost. */
export function sum(spenders: readonly Pick<Spender, "hourly">[]): HourlyRange {
  let min = 0;
  let max = 0;
  for (const s of spenders) {
    min += s.hourly.min;
    max += s.hourly.max;
  }
  return { min: usd(min), max: usd(max) };
}

/** The `n` that cost the most (at the top of their range), each with its price and owner: `pod a $2.99/h (stack acme/infra/prod)`. */
export function largest(spenders: readonly Spender[], n = 4): string {
  return [...spenders]
    .filter((s) => s.hourly.max > 0)
    .sort((a, b) => b.hourly.max - a.hourly.max)
    .slice(0, n)
    .map((s) => `${s.label} ${range(s.hourly)} (${s.owner})`)
    .join(", ");
}
