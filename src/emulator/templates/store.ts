// Templates (the contract's Template, CreateTemplateRequest, UpdateTemplateRequest): pod and
// serverless ones. A serverless template is what an endpoint's `templateId` names; one in use
// by an endpoint cannot be deleted (409) nor stop being serverless (400).

import { checkContainerLimits } from "../catalog/limits";
import { contractViolation, problem } from "../core/problem";
import { checkRegistryRef } from "../registries/store";
import { createTemplateSchema, updateTemplateSchema, validate } from "../core/validate";

export type TemplateCategory = "CPU" | "NVIDIA" | "AMD";

export interface Template {
  id: string;
  name: string;
  image: string;
  args: string;
  disk: number;
  mounts: { persistent?: { size: number; path: string } };
  ports: string[];
  env: Record<string, string>;
  registry: string | null;
  serverless: boolean;
  public: boolean;
  category: TemplateCategory;
}

type TemplateBody = Partial<Omit<Template, "id">>;

export interface TemplateEnvironment {
  newId: () => string;
  registryExists: (id: string) => boolean;
  /** What uses the template now (an endpoint), or undefined. */
  usedBy: (templateId: string) => string | undefined;
  /**
   * Told after every update (the endpoints bound to it make a release); `except` is passed on
   * from the update (an endpoint whose own save already recorded the change).
   */
  changed?: (before: Template, after: Template, except?: string) => void;
}

/** Container disk when the request gives none (as for pods). */
const DEFAULT_DISK_GB = 20;

export class Templates {
  private readonly byId = new Map<string, Template>();

  constructor(private readonly env: TemplateEnvironment) {}

  create(body: unknown): Template {
    const errors = validate(createTemplateSchema, body);
    if (errors.length > 0) throw contractViolation(errors);
    const b = body as TemplateBody & { name: string; image: string };
    checkContainerLimits(b);
    checkRegistryRef("registry", b.registry, this.env.registryExists);
    const template: Template = {
      id: this.env.newId(),
      name: b.name,
      image: b.image,
      args: b.args ?? "",
      disk: b.disk ?? DEFAULT_DISK_GB,
      mounts: b.mounts?.persistent ? { persistent: { ...b.mounts.persistent } } : {},
      ports: [...(b.ports ?? [])],
      env: { ...b.env },
      registry: b.registry ?? null,
      serverless: b.serverless ?? false,
      public: b.public ?? false,
      category: b.category ?? "NVIDIA",
    };
    this.byId.set(template.id, template);
    return structuredClone(template);
  }

  get(id: string): Template {
    return structuredClone(this.mustGet(id));
  }

  list(): Template[] {
    return [...this.byId.values()].map((t) => structuredClone(t));
  }

  /** The image of a template, or null when there is none. */
  imageOf(id: string): string | null {
    return this.byId.get(id)?.image ?? null;
  }

  /** Whether `id` names a serverless template (what an endpoint's `templateId` must name). */
  isServerless(id: string): boolean {
    return this.byId.get(id)?.serverless === true;
  }

  /** Whether a template uses the registry credential. */
  usesRegistry(registryId: string): Template | undefined {
    return [...this.byId.values()].find((t) => t.registry === registryId);
  }

  update(id: string, body: unknown, except?: string): Template {
    const template = this.mustGet(id);
    const before = structuredClone(template);
    const errors = validate(updateTemplateSchema, body);
    if (errors.length > 0) throw contractViolation(errors);
    const b = body as TemplateBody;
    checkContainerLimits(b);
    checkRegistryRef("registry", b.registry, this.env.registryExists);
    if (b.serverless === false && template.serverless) {
      const user = this.env.usedBy(id);
      if (user) throw problem(400, `serverless: template '${id}' is used by ${user} and must stay serverless`);
    }
    const { mounts, ...rest } = b;
    Object.assign(template, structuredClone(rest));
    // Omitting mounts or sending {} leaves the mount unchanged (TemplateMounts).
    if (mounts?.persistent) template.mounts = { persistent: { ...mounts.persistent } };
    this.env.changed?.(before, structuredClone(template), except);
    return structuredClone(template);
  }

  delete(id: string): void {
    this.mustGet(id);
    const user = this.env.usedBy(id);
    if (user) throw problem(409, `template '${id}' is in use by ${user}; remove that first`);
    this.byId.delete(id);
  }

  snapshot(): Template[] {
    return this.list();
  }

  restore(saved: unknown): void {
    if (!Array.isArray(saved)) throw new Error("state file: templates must be an array");
    this.byId.clear();
    for (const t of saved as Template[]) this.byId.set(t.id, structuredClone(t));
  }

  private mustGet(id: string): Template {
    const template = this.byId.get(id);
    if (!template) throw problem(404, `template '${id}' not found`);
    return template;
  }
}
