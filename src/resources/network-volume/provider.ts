/*
 * NetworkVolume: lifecycle -> API calls
 *
 *   check   no request. Size bounds (10..4096 GB), a smaller size than before is refused
 *           (volumes only grow), auto-name kept across updates.
 *   diff    no request. dataCenter, a different type -> replace (type left out: no change,
 *           the platform keeps the one it has); name, a larger size -> update in place.
 *   create  GET /v2/network-volumes (shared with reads and a fleet's creates: the ids seen
 *           before), POST   /v2/network-volumes {name, size, dataCenter, type?}  (no type: the
 *           data center's first networkVolumeTypes entry); after an ambiguous answer only a
 *           volume not seen before is taken (lifecycle/find-again.ts).
 *   read    alone: GET /v2/network-volumes/{id}; reads that come together (a refresh)
 *           share one GET /v2/network-volumes, a volume missing from it confirmed by its
 *           own GET (lifecycle/shared-reads.ts). 404 -> gone.
 *   update  PATCH  /v2/network-volumes/{id} {name?, size?}  (nothing sent when only
 *           deleteWaitSeconds changed)
 *   delete  DELETE /v2/network-volumes/{id}      (404 -> already gone)
 *           409 (a pod or an endpoint still mounts it) -> GET /v2/pods and the endpoints
 *           every few seconds until none mounts it, then DELETE again; after
 *           deleteWaitSeconds, fail naming them (lifecycle/in-use.ts).
 */
import type * as pulumi from "@pulumi/pulumi";
import { type Clock, type ComputePlatform, type NetworkVolume, systemClock } from "../../client";
import { platform, type ProviderOptions } from "../engine/settings";
import { DEFAULT_IN_USE_POLL_MS, deleteWaitMs, deleteWhenUnused } from "../lifecycle/in-use";
import { createListedFirst } from "../lifecycle/find-again";
import { adopt, type Adoptable, checkAdoption, logNote, refuseReplaceWhileAdopted, releaseClaim } from "../lifecycle/adopt";
import { adoptTarget } from "../inputs/container";
import { deleteLine, stepLine, stepSubject } from "../lifecycle/step-line";
import { ClientReads, orGone } from "../lifecycle/shared-reads";
import { endpointsMounting, outputsOf, planNetworkVolumeChange, podsMounting, updateBody, VOLUME_STEP_EFFECTS, type VolumeHolder } from "./plan";
import { checkNetworkVolume, DEFAULT_DELETE_WAIT_SECONDS, type NetworkVolumeInputs, type NetworkVolumeOutputs, shrinkRefusal } from "./schema";

/**
 * Dependencies of the provider; tests inject a client, a fake clock and a signal.
 *
 * @group Providers and checks
 */
export interface NetworkVolumeProviderOptions extends ProviderOptions<ComputePlatform> {
  /**
   * How often delete looks again for the pods that mount a volume, in ms.
   * @default 5000
   */
  pollIntervalMs?: number;
}

/**
 * The real provider behind `shimProvider("network-volume")`.
 *
 * @group Providers and checks
 */
export class NetworkVolumeProvider implements pulumi.dynamic.ResourceProvider<NetworkVolumeInputs, NetworkVolumeOutputs> {
  private readonly client: () => ComputePlatform;
  private readonly clock: Clock;
  private readonly pollIntervalMs: number;
  private readonly signal?: AbortSignal;
  private readonly print: (line: string) => void;
  /** Reads that come together share one list (lifecycle/shared-reads.ts), which creates look at first. */
  private readonly reads: ClientReads<ComputePlatform, NetworkVolume>;
  /** Volumes this process's creates made: never another create's. */
  private readonly made = new Set<string>();

  constructor(options: NetworkVolumeProviderOptions = {}) {
    this.client = options.client ?? platform;
    this.clock = options.clock ?? systemClock;
    this.pollIntervalMs = Math.max(1, options.pollIntervalMs ?? DEFAULT_IN_USE_POLL_MS);
    this.signal = options.signal;
    this.reads = ClientReads.listing((client) => client.networkVolumes.list({ signal: this.signal }), this.clock);
    this.print = options.print ?? logNote;
  }

  async check(olds: any, news: any): Promise<pulumi.dynamic.CheckResult<NetworkVolumeInputs>> {
    const result = checkNetworkVolume(olds, news);
    return checkAdoption(this.adoptable(), olds, adoptTarget(result.inputs), result);
  }

  async diff(id: string, olds: NetworkVolumeOutputs, news: NetworkVolumeInputs): Promise<pulumi.dynamic.DiffResult> {
    const plan = planNetworkVolumeChange(olds, news);
    // check() refuses a shrink of the inputs; this catches one against state that a refresh
    // grew. Failing here stops the preview instead of a replace that loses the data.
    if (plan.refused) throw new Error(`NetworkVolume ${olds.name}: ${plan.refused}`);
    refuseReplaceWhileAdopted("NetworkVolume", olds.name, id, news as unknown as Record<string, unknown>, plan.replaces);
    const line = stepLine(stepSubject("NetworkVolume", news, id), plan, VOLUME_STEP_EFFECTS);
    if (line) this.print(line);
    return {
      changes: plan.replaces.length > 0 || plan.updates.length > 0,
      replaces: plan.replaces,
      stables: plan.replaces.length > 0 ? [] : ["dataCenter", "type"],
    };
  }

  async create(inputs: NetworkVolumeInputs): Promise<pulumi.dynamic.CreateResult<NetworkVolumeOutputs>> {
    if (inputs.adopt) return adopt(this.adoptable(), inputs.adopt, inputs, async ({ id, baseline }) => ({ id: id, outs: (await this.update(id, baseline, inputs)).outs }));
    const client = this.client();
    const body = { name: inputs.name, size: inputs.size, dataCenter: inputs.dataCenter, ...(inputs.type ? { type: inputs.type } : {}) };
    const volume = await createListedFirst<NetworkVolume>({
      noun: "network volume",
      name: body.name,
      before: this.reads.of(client).list,
      create: (opts) => client.networkVolumes.create(body, opts),
      list: () => client.networkVolumes.list({ signal: this.signal }),
      isOurs: (v) => v.name === body.name && v.dataCenter === body.dataCenter && v.size === body.size && (body.type === undefined || v.type === body.type),
      claimed: this.made,
      unknownHint: "delete it",
      clock: this.clock,
      signal: this.signal,
    });
    return { id: volume.id, outs: { id: volume.id, ...outputsOf(volume, inputs.deleteWaitSeconds) } };
  }

  async read(id: string, props?: NetworkVolumeOutputs): Promise<pulumi.dynamic.ReadResult<NetworkVolumeOutputs>> {
    const client = this.client();
    const volume = await this.reads.of(client).read(id, { one: (volumeId) => orGone(() => client.networkVolumes.get(volumeId, { signal: this.signal })) });
    // An empty result tells the engine the volume is gone.
    if (!volume) return {};
    return { id: volume.id, props: { id: volume.id, ...outputsOf(volume, props?.deleteWaitSeconds) } };
  }

  async update(
    id: string,
    olds: NetworkVolumeOutputs,
    news: NetworkVolumeInputs,
  ): Promise<pulumi.dynamic.UpdateResult<NetworkVolumeOutputs>> {
    const refused = shrinkRefusal(olds.size, news.size, olds.dataCenter, news.dataCenter);
    if (refused) throw new Error(`NetworkVolume ${olds.name}: ${refused}`);
    const body = updateBody(olds, news);
    if (!body) return { outs: { ...olds, id, deleteWaitSeconds: news.deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS } };
    const client = this.client();
    try {
      const volume = await client.networkVolumes.update(id, body);
      return { outs: { id, ...outputsOf(volume, news.deleteWaitSeconds) } };
    } finally {
      this.reads.of(client).wrote(id);
    }
  }

  async delete(id: string, props: NetworkVolumeOutputs): Promise<void> {
    try {
      await deleteWhenUnused({
        what: "network volume",
        id,
        name: props?.name,
        verb: "mounted",
        waitMs: deleteWaitMs(props?.deleteWaitSeconds),
        pollIntervalMs: this.pollIntervalMs,
        clock: this.clock,
        signal: this.signal,
        remove: (signal) => this.client().networkVolumes.delete(id, { signal }),
        holders: (signal) => this.holders(id, signal),
        remedy: "Terminate the pod(s) or delete the endpoint(s), or remove the mount",
      });
      releaseClaim("NetworkVolume", id);
      this.print(deleteLine("NetworkVolume", id, VOLUME_STEP_EFFECTS));
    } finally {
      this.reads.of(this.client()).wrote(id);
    }
  }

  /** How an existing volume becomes this resource's (lifecycle/adopt.ts): its data center and tier never change. */
  private adoptable(): Adoptable<NetworkVolume, NetworkVolumeOutputs, NetworkVolumeInputs> {
    const client = this.client();
    return {
      kind: "NetworkVolume",
      noun: "network volume",
      find: (id) => orGone(() => client.networkVolumes.get(id, { signal: this.signal })),
      baseline: (v, inputs) => ({ id: v.id, ...outputsOf(v, inputs.deleteWaitSeconds) }),
      plan: planNetworkVolumeChange,
      fixed: (v) => `dataCenter: ${JSON.stringify(v.dataCenter)}${v.type ? `, type: ${JSON.stringify(v.type)}` : ""}`,
      wayOut: "remove adopt to create a new volume as declared (and move the data yourself)",
      account: { client, signal: this.signal },
    };
  }

  /** The pods and endpoints that mount the volume now. */
  private async holders(id: string, signal?: AbortSignal): Promise<VolumeHolder[]> {
    const client = this.client();
    const [pods, endpoints] = await Promise.all([client.pods.list({ signal }), client.endpoints.list({ signal })]);
    return [...podsMounting(pods, id), ...endpointsMounting(endpoints, id)];
  }
}
