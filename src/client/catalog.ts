import { type ClientContext, type RequestOptions, seg } from "./context";
import {
  CpuListSchema,
  type CpuType,
  CpuTypeSchema,
  type DataCenter,
  DataCenterListSchema,
  DataCenterSchema,
  GpuListSchema,
  type GpuType,
  GpuTypeSchema,
} from "./schemas";

/**
 * The catalog: GPU types, CPU flavors and data centers with their prices (contract
 * `/v2/catalog/*`). Ids such as `NVIDIA GeForce RTX 4090` are percent-encoded in the path.
 */
export class Catalog {
  constructor(private readonly ctx: ClientContext) {}

  /** `GET /v2/catalog/gpus`. */
  async gpus(opts: RequestOptions = {}): Promise<GpuType[]> {
    return (await this.ctx.rest("GET", "/v2/catalog/gpus", undefined, GpuListSchema, "a GPU list", opts)).gpus;
  }

  /** `GET /v2/catalog/gpus/{id}`. 404 → `NotFoundError`. */
  async gpu(id: string, opts: RequestOptions = {}): Promise<GpuType> {
    return this.ctx.rest("GET", `/v2/catalog/gpus/${seg(id)}`, undefined, GpuTypeSchema, "a GpuType", opts);
  }

  /** `GET /v2/catalog/cpus`. */
  async cpus(opts: RequestOptions = {}): Promise<CpuType[]> {
    return (await this.ctx.rest("GET", "/v2/catalog/cpus", undefined, CpuListSchema, "a CPU list", opts)).cpus;
  }

  /** `GET /v2/catalog/cpus/{id}`. 404 → `NotFoundError`. */
  async cpu(id: string, opts: RequestOptions = {}): Promise<CpuType> {
    return this.ctx.rest("GET", `/v2/catalog/cpus/${seg(id)}`, undefined, CpuTypeSchema, "a CpuType", opts);
  }

  /** `GET /v2/catalog/datacenters`. */
  async dataCenters(opts: RequestOptions = {}): Promise<DataCenter[]> {
    const res = await this.ctx.rest("GET", "/v2/catalog/datacenters", undefined, DataCenterListSchema, "a data-center list", opts);
    return res.dataCenters;
  }

  /** `GET /v2/catalog/datacenters/{id}`. 404 → `NotFoundError`. */
  async dataCenter(id: string, opts: RequestOptions = {}): Promise<DataCenter> {
    return this.ctx.rest("GET", `/v2/catalog/datacenters/${seg(id)}`, undefined, DataCenterSchema, "a DataCenter", opts);
  }
}
