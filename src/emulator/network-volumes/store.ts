// Network volumes as the contract writes them:
// `type` is the data center's first storage tier unless the create names one it offers, and
// like `dataCenter` it is fixed; a volume only grows; one in use cannot be deleted (409).

import { findDataCenter } from "../catalog/data";
import { contractViolation, problem } from "../core/problem";
import { createNetworkVolumeSchema, updateNetworkVolumeSchema, validate, type VolumeType } from "../core/validate";

/** A network volume as the API returns it (the contract's NetworkVolume). */
export interface NetworkVolume {
  id: string;
  name: string;
  size: number;
  dataCenter: string;
  type: VolumeType;
}

export class NetworkVolumes {
  readonly byId = new Map<string, NetworkVolume>();

  constructor(
    private readonly newId: () => string,
    /** What uses the volume now (a pod that is not TERMINATED, an endpoint), or undefined. */
    private readonly usedBy: (volumeId: string) => string | undefined,
    /** Called when the volume's storage starts or changes size (true) and when it is gone (false). */
    private readonly billing: (volume: NetworkVolume, on: boolean) => void = () => {},
  ) {}

  create(body: unknown): NetworkVolume {
    const errors = validate(createNetworkVolumeSchema, body);
    if (errors.length > 0) throw contractViolation(errors);
    const b = body as Omit<NetworkVolume, "id" | "type"> & { type?: VolumeType };
    const dc = findDataCenter(b.dataCenter);
    if (!dc) {
      throw problem(400, `dataCenter: unknown data center '${b.dataCenter}' (see GET /v2/catalog/datacenters)`);
    }
    if (b.type !== undefined && !dc.networkVolumeTypes.includes(b.type)) {
      throw problem(
        400,
        `type: data center ${dc.id} offers ${dc.networkVolumeTypes.join(", ")} network volumes, not ${b.type}`,
      );
    }
    const volume: NetworkVolume = {
      id: this.newId(),
      name: b.name,
      size: b.size,
      dataCenter: b.dataCenter,
      type: b.type ?? dc.networkVolumeTypes[0],
    };
    this.byId.set(volume.id, volume);
    this.billing(volume, true);
    return { ...volume };
  }

  get(id: string): NetworkVolume {
    return { ...this.mustGet(id) };
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  list(): NetworkVolume[] {
    return [...this.byId.values()].map((v) => ({ ...v }));
  }

  update(id: string, body: unknown): NetworkVolume {
    const volume = this.mustGet(id);
    const errors = validate(updateNetworkVolumeSchema, body);
    if (errors.length > 0) throw contractViolation(errors);
    const b = body as { name?: string; size?: number };
    if (b.size !== undefined && b.size < volume.size) {
      throw problem(400, `size: a network volume only grows (current ${volume.size} GB, asked ${b.size} GB)`);
    }
    if (b.name !== undefined) volume.name = b.name;
    if (b.size !== undefined && b.size !== volume.size) {
      volume.size = b.size;
      this.billing(volume, true);
    }
    return { ...volume };
  }

  delete(id: string): void {
    this.mustGet(id);
    const user = this.usedBy(id);
    if (user) throw problem(409, `network volume '${id}' is in use by ${user}; remove that first`);
    this.billing(this.mustGet(id), false);
    this.byId.delete(id);
  }

  snapshot(): NetworkVolume[] {
    return this.list();
  }

  restore(saved: unknown): void {
    if (!Array.isArray(saved)) throw new Error("state file: networkVolumes must be an array");
    this.byId.clear();
    for (const v of saved as NetworkVolume[]) {
      // Files written before volumes had a type: the data center's default tier.
      const type = v.type ?? findDataCenter(v.dataCenter)?.networkVolumeTypes[0] ?? "STANDARD";
      this.byId.set(v.id, { ...v, type });
    }
  }

  private mustGet(id: string): NetworkVolume {
    const volume = this.byId.get(id);
    if (!volume) throw problem(404, `network volume '${id}' not found`);
    return volume;
  }
}
