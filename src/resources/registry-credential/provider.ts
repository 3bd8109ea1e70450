/*
 * RegistryCredential: lifecycle -> API calls
 *
 *   check   no request. name (auto-named when left out, kept across updates), username,
 *           password non-empty strings; no failure ever quotes a value.
 *   diff    no request. name, username, password -> replace, the new credential first
 *           (deleteBeforeReplace false): pods that name it follow by an in-place update of
 *           `registry`, then the old one is deleted. deleteWaitSeconds -> update (state only).
 *   create  GET  /v2/registries (shared with reads and a fleet's creates: the ids seen before),
 *           POST /v2/registries {name, username, password}; after an ambiguous answer only a
 *           credential not seen before is taken (lifecycle/find-again.ts); the secrets are
 *           masked in every error and log line.
 *   read    alone: GET /v2/registries/{id}; reads that come together (a refresh) share one
 *           GET /v2/registries, a credential missing from it confirmed by its own GET
 *           (lifecycle/shared-reads.ts). 404 -> gone. The platform never returns username
 *           or password: they are kept from state, so a refresh sees deletion and renaming only.
 *   update  no request (only deleteWaitSeconds can change in place).
 *   delete  DELETE /v2/registries/{id}   (404 -> already gone)
 *           409 (a live pod or a template uses it) -> GET /v2/pods and /v2/templates every few
 *           seconds until none uses it, then DELETE again; after deleteWaitSeconds, fail naming
 *           them (lifecycle/in-use.ts).
 */
import type * as pulumi from "@pulumi/pulumi";
import { type Clock, type ComputePlatform, type Registry, systemClock } from "../../client";
import { platform, type ProviderOptions } from "../engine/settings";
import { DEFAULT_DELETE_WAIT_SECONDS, DEFAULT_IN_USE_POLL_MS, deleteWaitMs, deleteWhenUnused, type InUseHolder } from "../lifecycle/in-use";
import { createListedFirst } from "../lifecycle/find-again";
import { adopt, type Adoptable, checkAdoption, logNote, refuseReplaceWhileAdopted, releaseClaim } from "../lifecycle/adopt";
import { deleteLine, stepLine, stepSubject } from "../lifecycle/step-line";
import { adoptTarget } from "../inputs/container";
import { ClientReads, orGone } from "../lifecycle/shared-reads";
import { outputsOf, planRegistryCredentialChange, REGISTRY_CREDENTIAL_STEP_EFFECTS, registryUsers } from "./plan";
import { checkRegistryCredential, type RegistryCredentialInputs, type RegistryCredentialOutputs } from "./schema";

/**
 * Dependencies of the provider; tests inject a client, a fake clock and a signal.
 *
 * @group Providers and checks
 */
export interface RegistryCredentialProviderOptions extends ProviderOptions<ComputePlatform> {
  /**
   * How often delete looks again for the pods and templates that use a credential, in ms.
   * @default 5000
   */
  pollIntervalMs?: number;
}

/**
 * The real provider behind `shimProvider("registry-credential")`.
 *
 * @group Providers and checks
 */
export class RegistryCredentialProvider
  implements pulumi.dynamic.ResourceProvider<RegistryCredentialInputs, RegistryCredentialOutputs>
{
  private readonly client: () => ComputePlatform;
  private readonly clock: Clock;
  private readonly pollIntervalMs: number;
  private readonly signal?: AbortSignal;
  private readonly print: (line: string) => void;
  /** Reads that come together share one list (lifecycle/shared-reads.ts). */
  private readonly reads: ClientReads<ComputePlatform, Registry>;
  /** Credentials this process's creates made: never another create's. */
  private readonly made = new Set<string>();

  constructor(options: RegistryCredentialProviderOptions = {}) {
    this.client = options.client ?? platform;
    this.clock = options.clock ?? systemClock;
    this.pollIntervalMs = Math.max(1, options.pollIntervalMs ?? DEFAULT_IN_USE_POLL_MS);
    this.signal = options.signal;
    this.reads = ClientReads.listing((client) => client.registries.list({ signal: this.signal }), this.clock);
    this.print = options.print ?? logNote;
  }

  async check(olds: any, news: any): Promise<pulumi.dynamic.CheckResult<RegistryCredentialInputs>> {
    const result = checkRegistryCredential(olds, news);
    return checkAdoption(this.adoptable(), olds, adoptTarget(result.inputs), result);
  }

  async diff(id: string, olds: RegistryCredentialOutputs, news: RegistryCredentialInputs): Promise<pulumi.dynamic.DiffResult> {
    const plan = planRegistryCredentialChange(olds, news);
    refuseReplaceWhileAdopted("RegistryCredential", olds.name, id, news as unknown as Record<string, unknown>, plan.replaces);
    const line = stepLine(stepSubject("RegistryCredential", news, id), plan, REGISTRY_CREDENTIAL_STEP_EFFECTS);
    if (line) this.print(line);
    return {
      changes: plan.replaces.length > 0 || plan.updates.length > 0,
      replaces: plan.replaces,
      deleteBeforeReplace: false,
    };
  }

  async create(inputs: RegistryCredentialInputs): Promise<pulumi.dynamic.CreateResult<RegistryCredentialOutputs>> {
    // Adopted: the platform has no update, and the secrets cannot be compared; nothing is sent.
    if (inputs.adopt) return adopt(this.adoptable(), inputs.adopt, inputs, async ({ id, baseline }) => ({ id: id, outs: baseline }));
    const client = this.client();
    const registry = await createListedFirst<Registry>({
      noun: "registry credential",
      name: inputs.name,
      before: this.reads.of(client).list,
      create: (opts) => client.registries.create({ name: inputs.name, username: inputs.username, password: inputs.password }, opts),
      list: () => client.registries.list({ signal: this.signal }),
      // Nothing but the name reads back: the ids seen before do the rest.
      isOurs: (r) => r.name === inputs.name,
      claimed: this.made,
      unknownHint: "delete it",
      clock: this.clock,
      signal: this.signal,
    });
    return { id: registry.id, outs: { id: registry.id, ...outputsOf(registry, inputs, inputs.deleteWaitSeconds) } };
  }

  async read(id: string, props?: RegistryCredentialOutputs): Promise<pulumi.dynamic.ReadResult<RegistryCredentialOutputs>> {
    const client = this.client();
    const registry = await this.reads.of(client).read(id, { one: (regId) => orGone(() => client.registries.get(regId, { signal: this.signal })) });
    // An empty result tells the engine the credential is gone.
    if (!registry) return {};
    return { id: registry.id, props: { id: registry.id, ...outputsOf(registry, props, props?.deleteWaitSeconds) } };
  }

  async update(
    id: string,
    olds: RegistryCredentialOutputs,
    news: RegistryCredentialInputs,
  ): Promise<pulumi.dynamic.UpdateResult<RegistryCredentialOutputs>> {
    // diff sends every other change to a replace; this is the delete wait, kept in state.
    return { outs: { ...olds, id, deleteWaitSeconds: news.deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS } };
  }

  async delete(id: string, props: RegistryCredentialOutputs): Promise<void> {
    try {
      await deleteWhenUnused({
        what: "registry credential",
        id,
        name: props?.name,
        verb: "used",
        waitMs: deleteWaitMs(props?.deleteWaitSeconds),
        pollIntervalMs: this.pollIntervalMs,
        clock: this.clock,
        signal: this.signal,
        remove: (signal) => this.client().registries.delete(id, { signal }),
        holders: (signal) => this.users(id, signal),
        remedy: "Terminate the pod(s) or delete the template(s), or set their registry to another credential",
      });
      releaseClaim("RegistryCredential", id);
      this.print(deleteLine("RegistryCredential", id, REGISTRY_CREDENTIAL_STEP_EFFECTS));
    } finally {
      this.reads.of(this.client()).wrote(id);
    }
  }

  /**
   * How an existing credential becomes this resource's (lifecycle/adopt.ts). Its name cannot
   * change (no update); its secrets cannot be read, so state takes the program's, unverified.
   */
  private adoptable(): Adoptable<Registry, RegistryCredentialOutputs, RegistryCredentialInputs> {
    const client = this.client();
    return {
      kind: "RegistryCredential",
      noun: "registry credential",
      find: (id) => orGone(() => client.registries.get(id, { signal: this.signal })),
      baseline: (r, inputs) => ({ id: r.id, ...outputsOf(r, inputs, inputs.deleteWaitSeconds) }),
      plan: planRegistryCredentialChange,
      fixed: (r) => `name: ${JSON.stringify(r.name)}`,
      wayOut: "remove adopt to create a new credential as declared",
      caveat:
        "the platform never returns a credential's username and password, so state records the program's, unverified " +
        "(a change of either, with adopt removed, makes a new credential with them)",
      account: { client, signal: this.signal },
    };
  }

  /** The live pods and the templates that name the credential now. */
  private async users(id: string, signal?: AbortSignal): Promise<InUseHolder[]> {
    const client = this.client();
    const [pods, templates] = await Promise.all([client.pods.list({ signal }), client.templates.list({ signal })]);
    return registryUsers(pods, templates, id);
  }
}
