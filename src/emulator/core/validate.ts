// The contract checks of request bodies (the emulator's own reading of the platform's objects
// and operations). Every failure becomes one `$`-prefixed line in problem+json `errors[]`,
// in the platform's wording: `$: additional properties 'bogus' not allowed`,
// `$.mounts.network[0]: missing property 'path'`. Cross-field rules (400) live with the
// handlers, because they need the catalog and the stored pods.

export type Schema =
  | {
      type: "string";
      minLength?: number;
      pattern?: RegExp;
      enum?: readonly string[];
      /** A rule no keyword above expresses; returns the failure text. */
      rule?: (value: string) => string | undefined;
    }
  | { type: "integer"; minimum?: number; maximum?: number }
  | { type: "number"; minimum?: number }
  | { type: "boolean" }
  | { type: "nullable"; of: Schema }
  | { type: "array"; items: Schema; maxItems?: number; minItems?: number }
  | {
      type: "object";
      properties: Record<string, Schema>;
      required?: readonly string[];
      /** Schema of every property not named in `properties`; absent means none are allowed. */
      additional?: Schema;
      minProperties?: number;
    };

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function childPath(path: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** Returns every contract violation of `value`, each prefixed with its `$` path. */
export function validate(schema: Schema, value: unknown, path = "$"): string[] {
  const errors: string[] = [];
  check(schema, value, path, errors);
  return errors;
}

function check(schema: Schema, value: unknown, path: string, errors: string[]): void {
  switch (schema.type) {
    case "nullable":
      if (value !== null) check(schema.of, value, path, errors);
      return;
    case "string":
      if (typeof value !== "string") {
        errors.push(`${path}: expected string, but got ${typeName(value)}`);
        return;
      }
      if (schema.minLength !== undefined && value.length < schema.minLength) {
        errors.push(`${path}: length must be >= ${schema.minLength}, but got ${value.length}`);
      }
      if (schema.enum && !schema.enum.includes(value)) {
        errors.push(
          `${path}: value must be one of ${schema.enum.map((v) => `'${v}'`).join(", ")}, but got '${value}'`,
        );
      }
      if (schema.pattern && !schema.pattern.test(value)) {
        errors.push(`${path}: '${value}' does not match pattern '${schema.pattern.source}'`);
        return;
      }
      {
        const failure = schema.rule?.(value);
        if (failure) errors.push(`${path}: ${failure}`);
      }
      return;
    case "integer":
      if (typeof value !== "number" || !Number.isInteger(value)) {
        errors.push(`${path}: expected integer, but got ${typeName(value)}`);
        return;
      }
      if (schema.minimum !== undefined && value < schema.minimum) {
        errors.push(`${path}: must be >= ${schema.minimum} but found ${value}`);
      }
      if (schema.maximum !== undefined && value > schema.maximum) {
        errors.push(`${path}: must be <= ${schema.maximum} but found ${value}`);
      }
      return;
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) {
        errors.push(`${path}: expected number, but got ${typeName(value)}`);
        return;
      }
      if (schema.minimum !== undefined && value < schema.minimum) {
        errors.push(`${path}: must be >= ${schema.minimum} but found ${value}`);
      }
      return;
    case "boolean":
      if (typeof value !== "boolean") errors.push(`${path}: expected boolean, but got ${typeName(value)}`);
      return;
    case "array":
      if (!Array.isArray(value)) {
        errors.push(`${path}: expected array, but got ${typeName(value)}`);
        return;
      }
      if (schema.minItems !== undefined && value.length < schema.minItems) {
        errors.push(`${path}: must have at least ${schema.minItems} items, but found ${value.length}`);
      }
      if (schema.maxItems !== undefined && value.length > schema.maxItems) {
        errors.push(`${path}: must have at most ${schema.maxItems} items, but found ${value.length}`);
      }
      value.forEach((item, i) => {
        check(schema.items, item, `${path}[${i}]`, errors);
      });
      return;
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        errors.push(`${path}: expected object, but got ${typeName(value)}`);
        return;
      }
      const record = value as Record<string, unknown>;
      const unknown = Object.keys(record).filter((k) => !Object.hasOwn(schema.properties, k));
      if (unknown.length > 0 && !schema.additional) {
        errors.push(`${path}: additional properties ${unknown.map((k) => `'${k}'`).join(", ")} not allowed`);
      }
      if (schema.minProperties !== undefined && Object.keys(record).length < schema.minProperties) {
        errors.push(`${path}: must have at least ${schema.minProperties} properties, but found ${Object.keys(record).length}`);
      }
      for (const name of schema.required ?? []) {
        if (!Object.hasOwn(record, name)) errors.push(`${path}: missing property '${name}'`);
      }
      for (const [key, item] of Object.entries(record)) {
        const sub = Object.hasOwn(schema.properties, key) ? schema.properties[key] : schema.additional;
        if (sub) check(sub, item, childPath(path, key), errors);
      }
      return;
    }
  }
}

const str: Schema = { type: "string" };
const nonEmpty: Schema = { type: "string", minLength: 1 };

// `<port>/<protocol>`; the pattern bounds the digits, `rule` the range 1..65535.
const PORT_PATTERN = /^([1-9][0-9]{0,4})\/([a-z]+)$/;

export function portNumber(spec: string): number {
  return Number(PORT_PATTERN.exec(spec)?.[1] ?? 0);
}

const portSchema: Schema = {
  type: "string",
  pattern: PORT_PATTERN,
  rule: (v) => (portNumber(v) > 65535 ? `port must be <= 65535 but found ${portNumber(v)}` : undefined),
};

const persistentMountSchema: Schema = {
  type: "object",
  properties: { size: { type: "integer", minimum: 10 }, path: nonEmpty },
  required: ["size", "path"],
};

const mountsSchema: Schema = {
  type: "object",
  properties: {
    persistent: persistentMountSchema,
    network: {
      type: "array",
      maxItems: 1,
      items: {
        type: "object",
        properties: { volumeId: nonEmpty, path: nonEmpty },
        required: ["volumeId", "path"],
      },
    },
  },
};


/** The contract's ContainerConfig, shared by pods and templates. */
// The contract sets no minLength on `image` or a mount `path`, but the platform requires both to
// be given, and "" names no image and no mount point: refused like a missing value (issue 14).
const containerConfigProperties: Record<string, Schema> = {
  image: nonEmpty,
  args: str,
  disk: { type: "integer", minimum: 1 },
  ports: { type: "array", items: portSchema },
  env: { type: "object", properties: {}, additional: str },
  registry: { type: "nullable", of: str },
};

const containerProperties: Record<string, Schema> = { ...containerConfigProperties, mounts: mountsSchema };

export const createPodSchema: Schema = {
  type: "object",
  properties: {
    name: nonEmpty,
    ...containerProperties,
    gpu: {
      type: "object",
      properties: { id: nonEmpty, count: { type: "integer", minimum: 1 } },
      required: ["id"],
    },
    cpu: {
      type: "object",
      properties: { id: nonEmpty, vcpuCount: { type: "integer", minimum: 2 } },
      required: ["id", "vcpuCount"],
    },
    cloud: { type: "string", enum: ["SECURE", "COMMUNITY"] },
    dataCenterIds: { type: "array", items: nonEmpty },
    globalNetworking: { type: "boolean" },
  },
  required: ["name", "image"],
};

export const updatePodSchema: Schema = {
  type: "object",
  properties: {
    name: nonEmpty,
    ...containerProperties,
    locked: { type: "boolean" },
    globalNetworking: { type: "boolean" },
  },
};

export const podActionSchema: Schema = {
  type: "object",
  properties: { action: { type: "string", enum: ["start", "stop", "restart", "terminate"] } },
  required: ["action"],
};

export const VOLUME_TYPES = ["STANDARD", "HIGH_PERFORMANCE"] as const;
export type VolumeType = (typeof VOLUME_TYPES)[number];

export const createNetworkVolumeSchema: Schema = {
  type: "object",
  properties: {
    name: nonEmpty,
    size: { type: "integer", minimum: 10, maximum: 4096 },
    dataCenter: nonEmpty,
    type: { type: "string", enum: VOLUME_TYPES },
  },
  required: ["name", "size", "dataCenter"],
};

export const updateNetworkVolumeSchema: Schema = {
  type: "object",
  minProperties: 1,
  properties: {
    name: nonEmpty,
    size: { type: "integer", minimum: 10, maximum: 4096 },
  },
};


/** The contract's TemplateMounts: a single persistent mount; `network` is refused (422). */
const templateMountsSchema: Schema = { type: "object", properties: { persistent: persistentMountSchema } };

const templateProperties: Record<string, Schema> = {
  name: nonEmpty,
  ...containerConfigProperties,
  mounts: templateMountsSchema,
  serverless: { type: "boolean" },
  public: { type: "boolean" },
  category: { type: "string", enum: ["CPU", "NVIDIA", "AMD"] },
};

export const createTemplateSchema: Schema = {
  type: "object",
  properties: templateProperties,
  required: ["name", "image"],
};

export const updateTemplateSchema: Schema = { type: "object", properties: templateProperties };

export const createRegistrySchema: Schema = {
  type: "object",
  properties: { name: nonEmpty, username: nonEmpty, password: nonEmpty },
  required: ["name", "username", "password"],
};

/** The contract's EndpointGpuConfig: serverless pools in priority order, GPUs per worker. */
const endpointGpuSchema: Schema = {
  type: "object",
  properties: { pools: { type: "array", items: str, minItems: 1 }, count: { type: "integer", minimum: 1 } },
  required: ["pools"],
};

const endpointProperties: Record<string, Schema> = {
  name: nonEmpty,
  ...containerConfigProperties,
  gpu: endpointGpuSchema,
  workers: {
    type: "object",
    properties: { min: { type: "integer", minimum: 0 }, max: { type: "integer", minimum: 0 } },
  },
  scaling: {
    type: "object",
    properties: {
      type: { type: "string", enum: ["QUEUE_DELAY", "REQUEST_COUNT"] },
      value: { type: "number", minimum: 0.5 },
      idleTimeout: { type: "integer", minimum: 0 },
    },
  },
  dataCenterIds: { type: "array", items: str },
  networkVolumes: { type: "array", items: str },
  timeout: { type: "integer" },
  flashboot: { type: "string", enum: ["OFF", "FLASHBOOT", "PRIORITY_FLASHBOOT"] },
};

/** The contract's CreateEndpointRequest (no `type`: a REST create makes a queue-based endpoint). */
export const createEndpointSchema: Schema = {
  type: "object",
  properties: endpointProperties,
  required: ["name", "image", "gpu"],
};

/** The contract's UpdateEndpointRequest: every field optional, only those given change. */
export const updateEndpointSchema: Schema = { type: "object", properties: endpointProperties };
