// What a resource class hands to Pulumi, without Pulumi serializing its provider: a test file
// mocks `@pulumi/pulumi` with `pulumiRecordingResources()`, whose `dynamic.Resource` records each
// construction (the provider, name, properties, options, module and type) and gives the object an
// output of each property and an `id`, as Pulumi's does. Serializing a provider opens an
// inspector session (3 to 4 s the first time in a suite); the class's own rules need none of it,
// and the serialized shim is tested at its path (engine/shim.test.ts).
import type * as pulumi from "@pulumi/pulumi";

export interface Registered {
  provider: unknown;
  name: string;
  props: Record<string, unknown>;
  opts: pulumi.CustomResourceOptions | undefined;
  /** `<module>:<type>`, e.g. `computeplatform:Pod`. */
  type: string;
  /** The object constructed. */
  resource: object;
}

/** Every construction since the suite began, in order; a test clears it. */
export const registered: Registered[] = [];

/** The one registration of `type` named `name`. */
export function registrationOf(type: string, name: string): Registered {
  const found = registered.filter((r) => r.type === type && r.name === name);
  if (found.length !== 1) throw new Error(`${found.length} registrations of ${type} ${name}`);
  return found[0]!;
}

/** `@pulumi/pulumi` as it is, but for a `dynamic.Resource` that records what it is given. */
export function pulumiRecordingResources(): typeof pulumi {
  const actual = jest.requireActual<typeof pulumi>("@pulumi/pulumi");
  class Resource {
    constructor(provider: unknown, name: string, props: Record<string, unknown>, opts?: pulumi.CustomResourceOptions, module = "", type = "Resource") {
      registered.push({ provider, name, props, opts, type: `${module}:${type}`, resource: this });
      for (const [key, value] of Object.entries(props)) (this as Record<string, unknown>)[key] = actual.output(value);
      (this as Record<string, unknown>).id = actual.output(opts?.id ?? `${name}-id`);
    }
  }
  return { ...actual, dynamic: { ...actual.dynamic, Resource } } as unknown as typeof pulumi;
}
