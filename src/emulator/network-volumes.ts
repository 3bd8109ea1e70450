import { findDataCenter } from "./catalog";
import { contractViolation, problem } from "./problem";
import { createNetworkVolumeSchema, updateNetworkVolumeSchema, validate } from "./validate";

/** A network volume as the API returns it (open-parts "Catalog and network volumes"). */
export interface NetworkVolume {
  id: string;
  name: string;
  size: number;
  dataCenter: string;
}

export class NetworkVolumes {
  readonly byId = new Map<string, NetworkVolume>();

  constructor(
    private readonly newId: () => string,
    /** Whether a pod that is not TERMINATED mounts the volume. */
    private readonly inUse: (volumeId: string) => boolean,
  ) {}

  create(body: unknown): NetworkVolume {
    const errors = validate(createNetworkVolumeSchema, body);
    if (errors.length > 0) throw contractViolation(errors);
    const b = body as Omit<NetworkVolume, "id">;
    if (!findDataCenter(b.dataCenter)) {
      throw problem(400, `dataCenter: unknown data center '${b.dataCenter}' (see GET /v2/catalog/datacenters)`);
    }
    const volume = { id: this.newId(), name: b.name, size: b.size, dataCenter: b.dataCenter };
    this.byId.set(volume.id, volume);
    return { ...volume };
  }

  get(id: string): NetworkVolume {
    const volume = this.byId.get(id);
    if (!volume) throw problem(404, `network volume '${id}' not found`);
    return { ...volume };
  }

  list(): NetworkVolume[] {
    return [...this.byId.values()].map((v) => ({ ...v }));
  }

  update(id: string, body: unknown): NetworkVolume {
    const volume = this.byId.get(id);
    if (!volume) throw problem(404, `network volume '${id}' not found`);
    const errors = validate(updateNetworkVolumeSchema, body);
    if (errors.length > 0) throw contractViolation(errors);
    const b = body as { name?: string; size?: number };
    if (b.size !== undefined && b.size < volume.size) {
      throw problem(400, `size: a network volume only grows (current ${volume.size} GB, asked ${b.size} GB)`);
    }
    if (b.name !== undefined) volume.name = b.name;
    if (b.size !== undefined) volume.size = b.size;
    return { ...volume };
  }

  delete(id: string): void {
    if (!this.byId.has(id)) throw problem(404, `network volume '${id}' not found`);
    if (this.inUse(id)) {
      throw problem(409, `network volume '${id}' is mounted by a pod that is not TERMINATED; terminate the pod first`);
    }
    this.byId.delete(id);
  }

  snapshot(): NetworkVolume[] {
    return this.list();
  }

  restore(saved: unknown): void {
    if (!Array.isArray(saved)) throw new Error("state file: networkVolumes must be an array");
    this.byId.clear();
    for (const v of saved as NetworkVolume[]) this.byId.set(v.id, { ...v });
  }
}
