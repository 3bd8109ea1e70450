import type { ClientContext, RequestOptions } from "./context";
import {
  type CpuFlavor,
  CpuListSchema,
  type DataCenter,
  DataCenterListSchema,
  GpuListSchema,
  type GpuType,
} from "./schemas";

/** The catalog: CPU flavors, GPU types, data centers (open-parts "Catalog"). */
export class Catalog {
  constructor(private readonly ctx: ClientContext) {}

  /** `GET /v2/catalog/cpus`. */
  async cpus(opts: RequestOptions = {}): Promise<CpuFlavor[]> {
    return (await this.ctx.rest("GET", "/v2/catalog/cpus", undefined, CpuListSchema, "a CPU list", opts)).cpus;
  }

  /** `GET /v2/catalog/gpus`. */
  async gpus(opts: RequestOptions = {}): Promise<GpuType[]> {
    return (await this.ctx.rest("GET", "/v2/catalog/gpus", undefined, GpuListSchema, "a GPU list", opts)).gpus;
  }

  /** `GET /v2/catalog/datacenters`. */
  async dataCenters(opts: RequestOptions = {}): Promise<DataCenter[]> {
    const res = await this.ctx.rest("GET", "/v2/catalog/datacenters", undefined, DataCenterListSchema, "a data-center list", opts);
    return res.dataCenters;
  }
}
