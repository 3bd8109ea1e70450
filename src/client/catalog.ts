import { type ClientContext, checkParams, type RequestOptions, seg, withQuery } from "./context";
import type { Listed } from "./core/records";
import {
  type CpuCatalogQuery,
  CpuCatalogQuerySchema,
  CpuListSchema,
  type CpuType,
  CpuTypeSchema,
  type DataCenter,
  type DataCenterCatalogQuery,
  DataCenterCatalogQuerySchema,
  DataCenterListSchema,
  type DataCenterLookupQuery,
  DataCenterLookupQuerySchema,
  DataCenterSchema,
  type GpuCatalogQuery,
  GpuCatalogQuerySchema,
  GpuListSchema,
  type GpuType,
  GpuTypeSchema,
} from "./schemas";

/**
 * The catalog: GPU types, CPU flavors and data centers with their prices (contract
 * `/v2/catalog/*`), optionally with availability. Ids such as `NVIDIA GeForce RTX 4090` are
 * percent-encoded in the path.
 */
export class Catalog {
  constructor(private readonly ctx: ClientContext) {}

  /** `GET /v2/catalog/gpus`. */
  async gpus(query: GpuCatalogQuery = {}, opts: RequestOptions = {}): Promise<Listed<GpuType>> {
    const path = withQuery("/v2/catalog/gpus", checkParams(GpuCatalogQuerySchema, query, "GPU catalog query"));
    return (await this.ctx.rest("GET", path, undefined, GpuListSchema, "a GPU list", opts)).gpus;
  }

  /** `GET /v2/catalog/gpus/{id}`. 404 → `NotFoundError`. */
  async gpu(id: string, query: GpuCatalogQuery = {}, opts: RequestOptions = {}): Promise<GpuType> {
    const path = withQuery(`/v2/catalog/gpus/${seg(id)}`, checkParams(GpuCatalogQuerySchema, query, "GPU catalog query"));
    return this.ctx.rest("GET", path, undefined, GpuTypeSchema, "a GpuType", opts);
  }

  /** `GET /v2/catalog/cpus`. */
  async cpus(query: CpuCatalogQuery = {}, opts: RequestOptions = {}): Promise<Listed<CpuType>> {
    const path = withQuery("/v2/catalog/cpus", checkParams(CpuCatalogQuerySchema, query, "CPU catalog query"));
    return (await this.ctx.rest("GET", path, undefined, CpuListSchema, "a CPU list", opts)).cpus;
  }

  /** `GET /v2/catalog/cpus/{id}`. 404 → `NotFoundError`. */
  async cpu(id: string, query: CpuCatalogQuery = {}, opts: RequestOptions = {}): Promise<CpuType> {
    const path = withQuery(`/v2/catalog/cpus/${seg(id)}`, checkParams(CpuCatalogQuerySchema, query, "CPU catalog query"));
    return this.ctx.rest("GET", path, undefined, CpuTypeSchema, "a CpuType", opts);
  }

  /** `GET /v2/catalog/datacenters`, narrowed by the filters given. */
  async dataCenters(query: DataCenterCatalogQuery = {}, opts: RequestOptions = {}): Promise<Listed<DataCenter>> {
    const q = checkParams(DataCenterCatalogQuerySchema, query, "data-center catalog query");
    const res = await this.ctx.rest("GET", withQuery("/v2/catalog/datacenters", q), undefined, DataCenterListSchema, "a data-center list", opts);
    return res.dataCenters;
  }

  /** `GET /v2/catalog/datacenters/{id}`. 404 → `NotFoundError`. */
  async dataCenter(id: string, query: DataCenterLookupQuery = {}, opts: RequestOptions = {}): Promise<DataCenter> {
    const q = checkParams(DataCenterLookupQuerySchema, query, "data-center look-up query");
    return this.ctx.rest("GET", withQuery(`/v2/catalog/datacenters/${seg(id)}`, q), undefined, DataCenterSchema, "a DataCenter", opts);
  }
}
