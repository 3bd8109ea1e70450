// How the engine marshals properties on the wire: secret signature objects, the unknown
// marker of a preview, undefined left out, and the engine's annotation of secret outputs.
import { structproto } from "./proto";

/** The engine's marker for a value not known yet (preview only). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
/** The key and value that mark a wire object as a secret. */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** A value in wire form marked secret, as the SDK and the engine exchange it. */
export function secret(value: unknown): Record<string, unknown> {
  return { [SIG_KEY]: SECRET_SIG, value };
}

export function isSecret(value: unknown): value is { value: unknown } {
  return typeof value === "object" && value !== null && (value as any)[SIG_KEY] === SECRET_SIG;
}

/** Drop every secret marker: what a provider that does not accept secrets is sent. */
export function reveal(value: unknown): unknown {
  if (isSecret(value)) return reveal(value.value);
  if (Array.isArray(value)) return value.map(reveal);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reveal(v)]));
  }
  return value;
}

const DROP = Symbol("drop");

/** Engine MarshalProperties: secrets kept or revealed, unknowns kept or left out, undefined left out. */
function marshalValue(value: unknown, opts: { keepSecrets: boolean; keepUnknowns: boolean }): unknown {
  if (value === undefined) return DROP;
  if (value === UNKNOWN) return opts.keepUnknowns ? UNKNOWN : DROP;
  if (isSecret(value)) {
    const inner = marshalValue(value.value, opts);
    if (inner === DROP) return DROP;
    return opts.keepSecrets ? secret(inner) : inner;
  }
  if (Array.isArray(value)) {
    return value.map((v) => {
      const m = marshalValue(v, opts);
      return m === DROP ? null : m;
    });
  }
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const m = marshalValue(v, opts);
      if (m !== DROP) out[k] = m;
    }
    return out;
  }
  return value;
}


export function toStruct(props: Record<string, unknown>, opts: { keepSecrets: boolean; keepUnknowns: boolean }): any {
  return structproto.Struct.fromJavaScript(marshalValue(props, opts) as Record<string, unknown>);
}

export function fromStruct(struct: any): Record<string, unknown> {
  return struct ? (struct.toJavaScript() as Record<string, unknown>) : {};
}

/** The engine's annotateSecrets: an output whose input was secret is stored secret. */
export function annotateSecrets(outs: Record<string, unknown>, ins: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...outs };
  for (const [k, inValue] of Object.entries(ins)) {
    if (!(k in result)) continue;
    const outValue = result[k];
    const bothObjects = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v) && !isSecret(v);
    if (bothObjects(outValue) && bothObjects(inValue)) {
      result[k] = annotateSecrets(outValue as Record<string, unknown>, inValue as Record<string, unknown>);
    } else if (!isSecret(outValue) && containsSecret(inValue)) {
      result[k] = secret(outValue);
    }
  }
  return result;
}

/**
 * The engine's step executor (step_executor.go, executeStep): after every step that writes a
 * resource's state (create, update, read, refresh, import), each output its
 * `additionalSecretOutputs` names is stored secret, whatever the provider returned.
 */
export function markSecretOutputs(outs: Record<string, unknown>, names: readonly string[] = []): Record<string, unknown> {
  const result: Record<string, unknown> = { ...outs };
  for (const k of names) if (k in result && result[k] !== undefined && !isSecret(result[k])) result[k] = secret(result[k]);
  return result;
}

function containsSecret(value: unknown): boolean {
  if (isSecret(value)) return true;
  if (Array.isArray(value)) return value.some(containsSecret);
  if (typeof value === "object" && value !== null) return Object.values(value).some(containsSecret);
  return false;
}
