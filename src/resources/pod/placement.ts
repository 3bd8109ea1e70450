/*
 * Where a Pod's create lands: the POST of its body, found again after an ambiguous answer, each
 * GPU type of its preference list tried in order until one has capacity (a type priced over
 * maxHourlyCost is not tried), and the catalog price of what it got.
 */
import { BadRequestError, type ComputePlatform, type PodCreateParams } from "../../client";
import { perHour, type PodCompute, priceBook } from "../cost/prices";
import { holdBudgets } from "../cost/guard";
import { createFoundAgain } from "../lifecycle/find-again";
import type { CreatePlan } from "./create-plan";
import { podCreateWrite } from "./costed-write";
import { type LivePod, OWNER_ENV } from "./schema";
import type { PodContext } from "./status";
import { matchesCreate, newestOf } from "./wire";

/** What placing a pod needs of the provider: its client, clock and signal. */
export type Placing = Pick<PodContext, "client" | "clock" | "signal">;

/** What finds a create again (lifecycle/find-again.ts): the ids listed before it, those other creates of the process made. */
export interface Found {
  seenBefore: ReadonlySet<string>;
  claimed: Set<string>;
}

/** The platform's answer when a GPU type has no capacity in the allowed data centers: nothing was made. */
export function isNoCapacity(err: unknown): err is BadRequestError {
  // Stryker disable next-line StringLiteral: any default text but one saying "no capacity" reads the same; the empty one says nothing
  return err instanceof BadRequestError && /no capacity/i.test(err.detail ?? "");
}

/**
 * The GPU types of `gpu.id` in order: POST each until one is placed. Only the platform's
 * "no capacity" answer (a 400 that made nothing) moves on to the next; any other failure
 * ends the create as it is. A type whose price is over `maxHourlyCost` is not tried; a CPU pod
 * priced over it is not created.
 */
export async function place(ctx: Placing, plan: CreatePlan, found: Found): Promise<LivePod> {
  const { inputs } = plan;
  const max = inputs.maxHourlyCost;
  // The price of a compute when it is over maxHourlyCost, else undefined. No cap, no catalog
  // read; a price the catalog does not know is under any cap (the platform decides).
  const overCap = async (compute: Omit<PodCompute, "cloud">): Promise<number | undefined> => {
    if (max === undefined) return undefined;
    const price = await priceBook(() => ctx.client).pod({ ...compute, cloud: inputs.cloud });
    return (price ?? -Infinity) > max ? price : undefined;
  };
  if (!inputs.gpu) {
    const price = await overCap({ cpu: inputs.cpu });
    if (price !== undefined) {
      throw new Error(
        `pod "${inputs.name}": cpu "${inputs.cpu!.id}" x${inputs.cpu!.vcpuCount} vCPU costs ${perHour(price)} at the ${inputs.cloud} price, over its maxHourlyCost ${perHour(max!)}; no pod was made. ` +
          "Choose fewer vCPUs or another flavor, or raise maxHourlyCost.",
      );
    }
    return post(ctx, plan, plan.body, found);
  }
  const where = inputs.dataCenterIds?.length ? `data centers ${inputs.dataCenterIds.join(", ")}` : "any data center";
  const tried: string[] = [];
  for (const gpuId of plan.gpuChoices) {
    const price = await overCap({ gpu: { id: gpuId, count: inputs.gpu.count } });
    if (price !== undefined) {
      tried.push(`"${gpuId}" x${inputs.gpu.count}: not tried, its ${inputs.cloud} price ${perHour(price)} is over maxHourlyCost ${perHour(max!)}`);
      continue;
    }
    try {
      return await post(ctx, plan, plan.bodyFor(gpuId), found);
    } catch (err) {
      if (!isNoCapacity(err)) throw err;
      tried.push(`"${gpuId}" x${inputs.gpu.count} in ${where}: ${err.status} ${err.detail}`);
    }
  }
  throw new Error(
    `pod "${inputs.name}": none of the GPU types of gpu.id could be placed, and no pod was made. Tried, in order: ${tried.join("; ")}. ` +
      "Add GPU types to gpu.id, allow more data centers in dataCenterIds, or try again later.",
  );
}

/** The catalog price of the pod's compute (the catalog read once per process); none if the catalog cannot tell. */
export async function hourlyCostOf(client: ComputePlatform, pod: LivePod): Promise<{ hourlyCost?: number }> {
  try {
    const hourlyCost = await priceBook(() => client).pod({ gpu: pod.gpu ?? undefined, cpu: pod.cpu ?? undefined, cloud: pod.cloud });
    return hourlyCost === undefined ? {} : { hourlyCost };
  } catch {
    // The output is informational: a catalog that cannot answer leaves it out, the pod stands.
    return {};
  }
}

/**
 * The pod a POST of `body` made: after an ambiguous answer, only one not seen before it
 * (lifecycle/find-again.ts). Each try is held to the budgets first, with the body it sends.
 */
async function post(ctx: Placing, plan: CreatePlan, body: PodCreateParams, found: Found): Promise<LivePod> {
  await holdBudgets(() => ctx.client, podCreateWrite(plan, body));
  return createFoundAgain<LivePod>({
    noun: "pod",
    name: body.name,
    create: (opts) => ctx.client.pods.create(body, opts),
    list: () => ctx.client.pods.list({ signal: ctx.signal }),
    // Stryker disable next-line OptionalChaining: the emulator lists every pod with its env; the contract lets a pod come without one
    isOurs: (p) => matchesCreate(p, body) && (body.env?.[OWNER_ENV] === undefined || p.env?.[OWNER_ENV] === body.env[OWNER_ENV]),
    excluded: found.seenBefore,
    claimed: found.claimed,
    unknownHint: "delete it or declare it with adopt",
    newest: newestOf,
    clock: ctx.clock,
    signal: ctx.signal,
  });
}
