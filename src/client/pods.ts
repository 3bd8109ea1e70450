import { type ClientContext, checkParams, type CreateOptions, type RequestOptions, seg } from "./context";
import { createOnce } from "./core/create-once";
import { findNew, findReadable, type Listed } from "./core/records";
import {
  type Pod,
  type PodAction,
  PodActionRequestSchema,
  type PodCreateParams,
  PodCreateParamsSchema,
  PodListSchema,
  PodSchema,
  type PodUpdateParams,
  PodUpdateParamsSchema,
} from "./schemas";

/** Pods: REST under `/v2/pods`. */
export class Pods {
  constructor(private readonly ctx: ClientContext) {}

  /**
   * Create a pod (201, status PROVISIONING). Retried blindly only on 429; after an ambiguous
   * failure the pod is looked up by name (and image and compute) first, so one call never
   * makes two pods. A pod that already had the same name, image and compute is adopted:
   * give pods unique names, or pass `opts.seenBefore` (only a pod that was not there before
   * counts: see {@link CreateOptions}).
   */
  async create(params: PodCreateParams, opts: CreateOptions = {}): Promise<Pod> {
    const body = checkParams(PodCreateParamsSchema, params, "pod create params");
    return createOnce({
      transport: this.ctx.transport,
      what: "pod",
      name: body.name,
      signal: opts.signal,
      attempt: () => this.ctx.rest("POST", "/v2/pods", body, PodSchema, "a Pod", { signal: opts.signal, mode: "unsafe" }),
      lookup: async () => {
        const pods = await this.list({ signal: opts.signal });
        const ours = (p: Pod) =>
          p.name === body.name && p.image === body.image && (body.gpu ? p.gpu?.id === body.gpu.id : p.cpu?.id === body.cpu?.id);
        if (opts.seenBefore) return findNew(pods, body.name, ours, opts.seenBefore);
        return newest(pods.filter(ours)) ?? findReadable(pods, body.name, ours);
      },
    });
  }

  /** Read one pod; a terminated pod still reads, with status TERMINATED. 404 → `NotFoundError`. */
  async get(id: string, opts: RequestOptions = {}): Promise<Pod> {
    return this.ctx.rest("GET", `/v2/pods/${seg(id)}`, undefined, PodSchema, "a Pod", opts);
  }

  /**
   * Every pod that is not terminated. A record the client cannot read (a status it does not
   * know, a number out of range) is left out and listed in `unreadable` with its id.
   */
  async list(opts: RequestOptions = {}): Promise<Listed<Pod>> {
    return (await this.ctx.rest("GET", "/v2/pods", undefined, PodListSchema, "a pod list", opts)).pods;
  }

  /** The newest non-terminated pod called `name`, or undefined: the look-up after an ambiguous create. */
  async findByName(name: string, opts: RequestOptions = {}): Promise<Pod | undefined> {
    return newest((await this.list(opts)).filter((p) => p.name === name && p.status !== "TERMINATED"));
  }

  /** PATCH the given fields (a mount keeps its kind and volume; a persistent one may only grow). Same body, same result: retried. */
  async update(id: string, params: PodUpdateParams, opts: RequestOptions = {}): Promise<Pod> {
    const body = checkParams(PodUpdateParamsSchema, params, "pod update params");
    return this.ctx.rest("PATCH", `/v2/pods/${seg(id)}`, body, PodSchema, "a Pod", { ...opts, mode: "idempotent" });
  }

  /**
   * Run an action from the pod's `actions`. Resolves to the pod, or undefined for `terminate`
   * (204). Not retried after an ambiguous failure: read the pod to learn what happened.
   */
  async action(id: string, action: PodAction, opts: RequestOptions = {}): Promise<Pod | undefined> {
    const body = checkParams(PodActionRequestSchema, { action }, "pod action");
    const schema = body.action === "terminate" ? undefined : PodSchema;
    return this.ctx.rest("POST", `/v2/pods/${seg(id)}/action`, body, schema, "a Pod", {
      ...opts,
      mode: "unsafe",
    });
  }

  /** Delete (terminate) a pod. A retry that finds it gone counts as done. */
  async delete(id: string, opts: RequestOptions = {}): Promise<void> {
    await this.ctx.rest("DELETE", `/v2/pods/${seg(id)}`, undefined, undefined, "nothing", {
      ...opts,
      notFoundOnRetryIsSuccess: true,
    });
  }
}

function newest(pods: Pod[]): Pod | undefined {
  return pods.reduce<Pod | undefined>((best, p) => (!best || p.createdAt > best.createdAt ? p : best), undefined);
}
