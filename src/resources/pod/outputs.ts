/*
 * What a Pod's state holds: the platform's pod as last read, and the record of what the program
 * declared (`__declared`). The mapping from the live pod is wire.ts.
 */
import type { Cloud, DesiredStatus, LivePod, WaitFor } from "./schema";

/**
 * What a Pod keeps in state about the user's declaration, beside the live pod: which
 * properties were set (so removing one resets it), which env keys (values are compared
 * against the live env, so no second copy of a secret value sits in state), and the
 * requested globalNetworking (the live flag changes only at the next start).
 */
export interface PodDeclaration {
  /** Input properties set after defaults, e.g. `["name", "image", "env", "gpu", ...]`. */
  keys: string[];
  /** The env keys the user declared; other keys (the platform's own) are never compared. */
  envKeys: string[];
  /** The globalNetworking the user asked for. */
  globalNetworking: boolean;
  /** The lock the user asked for: only a lock this resource set is lifted before delete. */
  locked?: boolean;
  /**
   * The key (lifecycle/applied.ts `recordKey`) of the GPU preference list declared, when `gpu.id`
   * was a list (the pod got one of them: `gpu.id` of the outputs). Only a key: the list may be secret.
   */
  gpuIdsKey?: string;
  /** The key of the `maxHourlyCost` declared (the value may be secret). */
  maxHourlyCostKey?: string;
  /** @deprecated state of 0.1.x: the list itself. Read, never written. */
  gpuIds?: string[];
  /** @deprecated state of 0.1.x: the value itself. Read, never written. */
  maxHourlyCost?: number;
  /**
   * The catalog price of the pod's compute for its cloud, USD per hour, priced at its create
   * (kept here because a refresh rebuilds the outputs from the live pod and this record).
   */
  hourlyCost?: number;
  /**
   * The auto-name last applied: a refresh reports it as the input, however many times it runs,
   * so a rename made outside Pulumi shows and is undone. A name the program gives is not kept
   * here (it may be secret; the program gives it again at every check).
   */
  name?: string;
}

/**
 * A Pod's state: every field of the platform's Pod as last read, plus the settings only this resource has.
 *
 * @group Resource outputs
 */
export interface PodOutputs {
  /** Pod identifier (also the resource ID). */
  id: string;
  name: string;
  status: LivePod["status"];
  actions: LivePod["actions"];
  image: string;
  args: string;
  disk: number;
  mounts: LivePod["mounts"];
  ports: string[];
  env: Record<string, string>;
  registry: string | null;
  gpu?: LivePod["gpu"];
  cpu?: LivePod["cpu"];
  cloud: Cloud;
  dataCenterId: string | null;
  template: string | null;
  cost: number;
  /** The catalog price of its compute for its cloud, USD per hour: what it bills while it runs. */
  hourlyCost?: number;
  locked: boolean;
  globalNetworking: LivePod["globalNetworking"];
  runtime: LivePod["runtime"];
  createdAt: string;
  startedAt: string | null;
  dataCenterIds?: string[];
  desiredStatus: DesiredStatus;
  waitFor: WaitFor;
  waitTimeoutSeconds: number;
  __declared: PodDeclaration;
}
