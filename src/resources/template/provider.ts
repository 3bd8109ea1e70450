/*
 * Template: lifecycle -> API calls
 *
 *   check   no request. Unknown properties refused by name; the rules of the contract's
 *           CreateTemplateRequest; defaults filled (args "", ports [], env {}, registry null,
 *           serverless false, public false, category NVIDIA); auto-name kept across updates.
 *   diff    no request. Every field PATCH takes changes in place; dropping the persistent
 *           mount (which PATCH cannot do) replaces the template.
 *   create  GET /v2/templates (shared with reads and a fleet's creates: the ids seen before),
 *           POST   /v2/templates {every field}; after an ambiguous answer only a template not
 *           seen before (the one being replaced, another stack's of the same name, a kept or a
 *           hand-made one never are) with that name, image and kind is taken
 *           (lifecycle/find-again.ts).
 *   read    alone: GET /v2/templates/{id}; reads that come together (a refresh) share one
 *           GET /v2/templates, a template missing from it confirmed by its own GET
 *           (lifecycle/shared-reads.ts). 404 -> gone.
 *   update  PATCH  /v2/templates/{id} {changed fields}  (nothing sent when only
 *           deleteWaitSeconds changed)
 *   delete  DELETE /v2/templates/{id}       (404 -> already gone)
 *           409 (or the contract's 400: in use) -> the endpoints (myself) and pods (GET
 *           /v2/pods) that use it, every few seconds, until none is left, then DELETE again;
 *           after deleteWaitSeconds, fail naming them.
 */
import type * as pulumi from "@pulumi/pulumi";
import { BadRequestError, type Clock, type ComputePlatform, ConflictError, NotFoundError, systemClock, type Template as WireTemplate } from "../../client";
import { platform, type ProviderOptions } from "../engine/settings";
import { deleteWhenUnused } from "../lifecycle/in-use";
import { adopt, type Adoptable, checkAdoption, logNote, refuseReplaceWhileAdopted, releaseClaim } from "../lifecycle/adopt";
import { deleteLine, stepLine, stepSubject } from "../lifecycle/step-line";
import { adoptTarget } from "../inputs/container";
import { createListedFirst } from "../lifecycle/find-again";
import { ClientReads, orGone } from "../lifecycle/shared-reads";
import { createBody, outputsOf, planTemplateChange, templateStepEffects, templateUsers, updateBody } from "./plan";
import { checkTemplate, DEFAULT_DELETE_WAIT_SECONDS, type TemplateInputs, type TemplateOutputs } from "./schema";

// The options below write this type out again: the API reference shows an option's type only
// when it is inline or exported (typedoc warned on the alias).
type Client = Pick<ComputePlatform, "templates" | "endpoints" | "pods"> & Partial<Pick<ComputePlatform, "networkVolumes" | "registries" | "serverless">>;

/**
 * Dependencies of the provider; tests inject a client, a fake clock and a signal.
 *
 * @group Providers and checks
 */
export interface TemplateProviderOptions extends ProviderOptions<Pick<ComputePlatform, "templates" | "endpoints" | "pods"> & Partial<Pick<ComputePlatform, "networkVolumes" | "registries" | "serverless">>> {
  /**
   * How often delete looks again for what uses a template, in ms.
   * @default 5000
   */
  pollIntervalMs?: number;
}

/**
 * The real provider behind `shimProvider("template")`.
 *
 * @group Providers and checks
 */
export class TemplateProvider implements pulumi.dynamic.ResourceProvider<TemplateInputs, TemplateOutputs> {
  private readonly client: () => Client;
  private readonly clock: Clock;
  private readonly pollIntervalMs: number;
  private readonly signal?: AbortSignal;
  private readonly print: (line: string) => void;
  /** Templates this process's creates made: never another create's. */
  private readonly made = new Set<string>();
  /** Reads that come together share one list (lifecycle/shared-reads.ts). */
  private readonly reads: ClientReads<Client, WireTemplate>;

  constructor(options: TemplateProviderOptions = {}) {
    this.client = options.client ?? platform;
    this.clock = options.clock ?? systemClock;
    this.pollIntervalMs = Math.max(1, options.pollIntervalMs ?? 5000);
    this.signal = options.signal;
    this.reads = ClientReads.listing((client) => client.templates.list(this.opts()), this.clock);
    this.print = options.print ?? logNote;
  }

  async check(olds: any, news: any): Promise<pulumi.dynamic.CheckResult<TemplateInputs>> {
    const result = checkTemplate(olds, news);
    return checkAdoption(this.adoptable(), olds, adoptTarget(result.inputs), result);
  }

  async diff(id: string, olds: TemplateOutputs, news: TemplateInputs): Promise<pulumi.dynamic.DiffResult> {
    const plan = planTemplateChange(olds, news);
    refuseReplaceWhileAdopted("Template", olds.name, id, news as unknown as Record<string, unknown>, plan.replaces);
    const line = stepLine(stepSubject("Template", news, id), plan, templateStepEffects(olds, news));
    if (line) this.print(line);
    return { changes: plan.replaces.length > 0 || plan.updates.length > 0, replaces: plan.replaces, deleteBeforeReplace: false };
  }

  async create(inputs: TemplateInputs): Promise<pulumi.dynamic.CreateResult<TemplateOutputs>> {
    if (inputs.adopt) return adopt(this.adoptable(), inputs.adopt, inputs, async ({ id, baseline }) => ({ id: id, outs: (await this.update(id, baseline, inputs)).outs }));
    const made = await this.createOnce(inputs);
    return { id: made.id, outs: outputsOf(made, inputs.deleteWaitSeconds) };
  }

  async read(id: string, props?: Partial<TemplateOutputs>): Promise<pulumi.dynamic.ReadResult<TemplateOutputs>> {
    const client = this.client();
    const t = await this.reads.of(client).read(id, { one: (templateId) => orGone(() => client.templates.get(templateId, this.opts())) });
    // An empty result tells the engine the template is gone.
    if (!t) return {};
    return { id: t.id, props: outputsOf(t, props?.deleteWaitSeconds) };
  }

  async update(id: string, olds: TemplateOutputs, news: TemplateInputs): Promise<pulumi.dynamic.UpdateResult<TemplateOutputs>> {
    const body = updateBody(olds, news);
    if (!body) return { outs: { ...olds, id, deleteWaitSeconds: news.deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS } };
    try {
      return { outs: outputsOf(await this.client().templates.update(id, body, this.opts()), news.deleteWaitSeconds) };
    } catch (err) {
      if (err instanceof NotFoundError) {
        throw new Error(`Template ${JSON.stringify(olds.name)} (${id}) no longer exists on the platform; run \`pulumi refresh\` to forget it, then \`pulumi up\` to make a new one`);
      }
      throw err;
    } finally {
      this.reads.of(this.client()).wrote(id);
    }
  }

  async delete(id: string, props: Partial<TemplateOutputs>): Promise<void> {
    const waitMs = 1000 * (props?.deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS);
    try {
      await deleteWhenUnused({
        what: "template",
        id,
        name: props?.name,
        verb: "used",
        remedy: "Delete the endpoint(s) or pod(s), or point them at another template",
        remove: () => this.client().templates.delete(id, this.opts()),
        holders: () => this.users(id),
        // The platform answers 409; the contract writes 400 for the same refusal.
        inUse: (err) => err instanceof ConflictError || err instanceof BadRequestError,
        waitMs,
        pollIntervalMs: this.pollIntervalMs,
        clock: this.clock,
        signal: this.signal,
      });
      releaseClaim("Template", id);
      this.print(deleteLine("Template", id, templateStepEffects(props, props)));
    } finally {
      this.reads.of(this.client()).wrote(id);
    }
  }

  // ---- steps ----

  /** How an existing template becomes this resource's (lifecycle/adopt.ts): every field PATCHes but a persistent mount's removal. */
  private adoptable(): Adoptable<WireTemplate, TemplateOutputs, TemplateInputs> {
    const client = this.client();
    return {
      kind: "Template",
      noun: "template",
      find: (id) => orGone(() => client.templates.get(id, this.opts())),
      baseline: (t, inputs) => outputsOf(t, inputs.deleteWaitSeconds),
      plan: planTemplateChange,
      fixed: (t) => `mounts: ${JSON.stringify(outputsOf(t, undefined).mounts)}`,
      wayOut: "remove adopt to create a new template as declared",
      account: { client, signal: this.signal },
    };
  }

  /** POST, never twice; after an ambiguous answer only a template not seen before it (lifecycle/find-again.ts). */
  private createOnce(inputs: TemplateInputs): Promise<WireTemplate> {
    const client = this.client();
    const body = createBody(inputs);
    return createListedFirst<WireTemplate>({
      noun: "template",
      name: body.name,
      before: this.reads.of(client).list,
      create: (opts) => client.templates.create(body, opts),
      list: () => client.templates.list(this.opts()),
      isOurs: (t) => t.name === body.name && t.image === body.image && t.serverless === body.serverless,
      claimed: this.made,
      unknownHint: "delete it",
      clock: this.clock,
      signal: this.signal,
    });
  }

  /** What uses the template now: endpoints that run it, pods made from it. */
  private async users(id: string) {
    const [endpoints, pods] = await Promise.all([this.client().endpoints.list(this.opts()), this.client().pods.list(this.opts())]);
    return templateUsers(id, endpoints, pods);
  }

  private opts(): { signal?: AbortSignal } {
    return this.signal ? { signal: this.signal } : {};
  }
}
