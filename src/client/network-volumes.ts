import { type ClientContext, checkParams, type CreateOptions, type RequestOptions, seg } from "./context";
import { createOnce } from "./core/create-once";
import { findNew, findReadable, type Listed } from "./core/records";
import {
  type NetworkVolume,
  type NetworkVolumeCreateParams,
  NetworkVolumeCreateParamsSchema,
  NetworkVolumeListSchema,
  NetworkVolumeSchema,
  type NetworkVolumeUpdateParams,
  NetworkVolumeUpdateParamsSchema,
} from "./schemas";

/**
 * Network volumes: REST under `/v2/network-volumes`. `type` (STANDARD or HIGH_PERFORMANCE) is chosen at creation and fixed.
 */
export class NetworkVolumes {
  constructor(private readonly ctx: ClientContext) {}

  /**
   * Create a volume; like a pod create, never makes two (look-up by name, size and data center;
   * with `opts.seenBefore`, only a volume that was not there before: see {@link CreateOptions}).
   */
  async create(params: NetworkVolumeCreateParams, opts: CreateOptions = {}): Promise<NetworkVolume> {
    const body = checkParams(NetworkVolumeCreateParamsSchema, params, "network volume create params");
    return createOnce({
      transport: this.ctx.transport,
      what: "network volume",
      name: body.name,
      signal: opts.signal,
      attempt: () =>
        this.ctx.rest("POST", "/v2/network-volumes", body, NetworkVolumeSchema, "a NetworkVolume", { signal: opts.signal, mode: "unsafe" }),
      lookup: async () => {
        const ours = (v: NetworkVolume) =>
          v.name === body.name && v.dataCenter === body.dataCenter && v.size === body.size && (body.type === undefined || v.type === body.type);
        const list = await this.list({ signal: opts.signal });
        return opts.seenBefore ? findNew(list, body.name, ours, opts.seenBefore) : findReadable(list, body.name, ours);
      },
    });
  }

  async get(id: string, opts: RequestOptions = {}): Promise<NetworkVolume> {
    return this.ctx.rest("GET", `/v2/network-volumes/${seg(id)}`, undefined, NetworkVolumeSchema, "a NetworkVolume", opts);
  }

  /** The key owner's volumes; those the client cannot read are in `unreadable`. */
  async list(opts: RequestOptions = {}): Promise<Listed<NetworkVolume>> {
    const res = await this.ctx.rest("GET", "/v2/network-volumes", undefined, NetworkVolumeListSchema, "a volume list", opts);
    return res.networkVolumes;
  }

  /** Rename or grow (a smaller size is a 400: volumes only grow). */
  async update(id: string, params: NetworkVolumeUpdateParams, opts: RequestOptions = {}): Promise<NetworkVolume> {
    const body = checkParams(NetworkVolumeUpdateParamsSchema, params, "network volume update params");
    return this.ctx.rest("PATCH", `/v2/network-volumes/${seg(id)}`, body, NetworkVolumeSchema, "a NetworkVolume", opts);
  }

  /** Delete; 409 (`ConflictError`) while a pod that is not terminated mounts it. */
  async delete(id: string, opts: RequestOptions = {}): Promise<void> {
    await this.ctx.rest("DELETE", `/v2/network-volumes/${seg(id)}`, undefined, undefined, "nothing", {
      ...opts,
      notFoundOnRetryIsSuccess: true,
    });
  }
}
