// Resource names on the wire: every request carries the urn, its name and its type.

export function urnOf(stack: string, project: string, type: string, name: string): string {
  return `urn:pulumi:${stack}::${project}::${type}::${name}`;
}

/** Every resource request names its resource the same way; `id` once it exists. */
export function addressed(req: any, urn: string, id?: string): void {
  if (id !== undefined) req.setId(id);
  req.setUrn(urn);
  req.setName(nameOf(urn));
  req.setType(typeOf(urn));
}

export function nameOf(urn: string): string {
  return urn.split("::").at(-1) ?? "";
}

export function typeOf(urn: string): string {
  return urn.split("::").at(-2) ?? "";
}
