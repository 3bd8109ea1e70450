import { type ClientContext, checkParams, type RequestOptions, withQuery } from "./context";
import {
  type BillingQueryParams,
  BillingQueryParamsSchema,
  type BillingResponse,
  BillingResponseSchema,
  type EndpointBillingResponse,
  EndpointBillingResponseSchema,
  type NetworkVolumeBillingQueryParams,
  NetworkVolumeBillingQueryParamsSchema,
  type NetworkVolumeBillingResponse,
  NetworkVolumeBillingResponseSchema,
  type PodBillingQueryParams,
  PodBillingQueryParamsSchema,
  type PodBillingResponse,
  PodBillingResponseSchema,
} from "./schemas";

/**
 * Billing: REST under `/v2/billing`. Each call takes a window (`startTime`/`endTime`, or
 * `lastN` buckets) and a `bucketSize`, and answers the records with the resolved query and
 * totals. Read-only, so every call is retried like any GET.
 */
export class Billing {
  constructor(private readonly ctx: ClientContext) {}

  /** `GET /v2/billing`: total spend per bucket, every cost component broken out. */
  async summary(query: BillingQueryParams = {}, opts: RequestOptions = {}): Promise<BillingResponse> {
    const q = checkParams(BillingQueryParamsSchema, query, "billing query");
    return this.ctx.rest("GET", withQuery("/v2/billing", q), undefined, BillingResponseSchema, "a billing list", opts);
  }

  /** `GET /v2/billing/pods`: one record per pod per bucket (`podId` narrows to one pod). */
  async pods(query: PodBillingQueryParams = {}, opts: RequestOptions = {}): Promise<PodBillingResponse> {
    const q = checkParams(PodBillingQueryParamsSchema, query, "pod billing query");
    return this.ctx.rest("GET", withQuery("/v2/billing/pods", q), undefined, PodBillingResponseSchema, "a pod billing list", opts);
  }

  /** `GET /v2/billing/networkvolumes`: one record per volume per bucket (`networkVolumeId` narrows). */
  async networkVolumes(query: NetworkVolumeBillingQueryParams = {}, opts: RequestOptions = {}): Promise<NetworkVolumeBillingResponse> {
    const q = checkParams(NetworkVolumeBillingQueryParamsSchema, query, "network volume billing query");
    const path = withQuery("/v2/billing/networkvolumes", q);
    return this.ctx.rest("GET", path, undefined, NetworkVolumeBillingResponseSchema, "a network volume billing list", opts);
  }

  /** `GET /v2/billing/endpoints`: public-endpoint spend per bucket. */
  async endpoints(query: BillingQueryParams = {}, opts: RequestOptions = {}): Promise<EndpointBillingResponse> {
    const q = checkParams(BillingQueryParamsSchema, query, "endpoint billing query");
    const path = withQuery("/v2/billing/endpoints", q);
    return this.ctx.rest("GET", path, undefined, EndpointBillingResponseSchema, "an endpoint billing list", opts);
  }
}
