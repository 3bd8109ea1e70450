// Container registry credentials. `username`
// and `password` are write-only: checked against the contract, then dropped. The emulator
// pulls no image, so it keeps neither, and no answer, log or state file can carry them.

import { contractViolation, problem } from "../core/problem";
import { createRegistrySchema, validate } from "../core/validate";

/** The contract's Registry: all that is ever answered or stored. */
export interface Registry {
  id: string;
  name: string;
}

export class Registries {
  private readonly byId = new Map<string, Registry>();

  constructor(
    private readonly newId: () => string,
    /** What uses the credential now (a pod that is not TERMINATED, a template), or undefined. */
    private readonly usedBy: (registryId: string) => string | undefined,
  ) {}

  create(body: unknown): Registry {
    // Validation messages name paths and rules, never values, so no credential leaks here.
    const errors = validate(createRegistrySchema, body);
    if (errors.length > 0) throw contractViolation(errors);
    const registry = { id: this.newId(), name: (body as { name: string }).name };
    this.byId.set(registry.id, registry);
    return { ...registry };
  }

  get(id: string): Registry {
    const registry = this.byId.get(id);
    if (!registry) throw problem(404, `registry '${id}' not found`);
    return { ...registry };
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  list(): Registry[] {
    return [...this.byId.values()].map((r) => ({ ...r }));
  }

  delete(id: string): void {
    this.get(id);
    const user = this.usedBy(id);
    if (user) throw problem(409, `registry '${id}' is in use by ${user}; remove that first`);
    this.byId.delete(id);
  }

  snapshot(): Registry[] {
    return this.list();
  }

  restore(saved: unknown): void {
    if (!Array.isArray(saved)) throw new Error("state file: registries must be an array");
    this.byId.clear();
    for (const r of saved as Registry[]) this.byId.set(r.id, { id: r.id, name: r.name });
  }
}

/** A `registry` field of a pod or template must name one of the owner's credentials (400). */
export function checkRegistryRef(field: string, id: string | null | undefined, known: (id: string) => boolean): void {
  if (id !== null && id !== undefined && !known(id)) {
    throw problem(400, `${field}: registry '${id}' does not exist (see GET /v2/registries)`);
  }
}
