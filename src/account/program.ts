/*
 * A Pulumi program written from the account: each object declared as it is, with `adopt`, so the
 * program's first `up` takes everything over and changes nothing (then previews `same`). Pure:
 * it reads the lists the sweep reads (sweep.ts `readAccount`) and returns the program's text and
 * a report.
 *
 *   references  a pod's network volume and registry credential, a template's credential, an
 *               endpoint's template and volume are the other resources' `id` outputs when those
 *               are in the program, else the id as written (and the report says so);
 *   secrets     a credential's username and password (the platform never returns them), and
 *               every env value (the platform returns them, but a program is committed) are
 *               stack config the user sets: the program reads them, the report names the keys,
 *               no value is ever written or printed;
 *   left out    what no stack may adopt (an unfinished create, a pod another stack's resource
 *               made), each with the reason.
 *
 * Endpoints are declared over GraphQL (`templateId`): both APIs see every endpoint, and the
 * template an endpoint runs is then a resource of the program like any other.
 */
import type { Endpoint, NetworkVolume, Pod, Registry, Template } from "../client";
import { type Kind, KINDS } from "./kinds";
import { isPendingName, STACK_MARK_ENV } from "../resources/lifecycle/owner";
import { OWNER_ENV } from "../resources/pod/schema";
import type { AccountLists } from "./sweep";

/** What the user picks of the account. */
export interface ProgramFilter {
  kinds?: readonly Kind[];
  /** Only objects whose name contains this. */
  name?: string;
  /** Only these ids. */
  ids?: readonly string[];
}

export interface WrittenProgram {
  /** The TypeScript program (`index.ts`). */
  text: string;
  /** The resources declared, by kind and logical name, with the id each adopts. */
  declared: { kind: Kind; name: string; id: string }[];
  /** Objects left out, and why. */
  leftOut: { kind: Kind; id: string; name: string; why: string }[];
  /** The stack config the program reads: `pulumi config set --secret <key> <value>` for each. */
  config: { key: string; what: string }[];
  /** References to objects not in the program, written as ids. */
  notes: string[];
}

/** Keys the platform adds to a pod's env (never declared). */
const PLATFORM_ENV = new Set(["COMPUTEPLATFORM_POD_ID", OWNER_ENV, STACK_MARK_ENV]);

const SUFFIX: Record<Kind, string> = { Pod: "Pod", ServerlessEndpoint: "Endpoint", NetworkVolume: "Volume", Template: "Template", RegistryCredential: "Credential" };

/** A logical name from an object's name: letters, digits and dashes. */
function logical(name: string): string {
  const s = name.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "");
  return s === "" ? "object" : s;
}

/** A variable name: camelCase of the logical name, then the kind (`datasetsVolume`). */
function variable(name: string, kind: Kind): string {
  const camel = name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
  return `${/^[0-9]/.test(camel) ? `_${camel}` : camel}${SUFFIX[kind]}`;
}

const lit = (v: unknown) => JSON.stringify(v);

/** Write the program for what `lists` holds, narrowed by `filter`. */
export function writeProgram(lists: AccountLists, filter: ProgramFilter = {}): WrittenProgram {
  const kinds = new Set(filter.kinds ?? KINDS);
  const picked = (kind: Kind, o: { id: string; name?: string | null }) =>
    kinds.has(kind) && (filter.ids === undefined || filter.ids.includes(o.id)) && (filter.name === undefined || (o.name ?? "").includes(filter.name));
  const declared: WrittenProgram["declared"] = [];
  const leftOut: WrittenProgram["leftOut"] = [];
  const config: WrittenProgram["config"] = [];
  const notes: string[] = [];
  const vars = new Map<string, string>(); // object id -> variable
  const used = new Map<Kind, Set<string>>();
  const blocks: string[] = [];

  /** Claim a logical name and a variable for object `o`, or leave it out with a reason. */
  const take = (kind: Kind, o: { id: string; name?: string | null }, refuse?: string): { name: string; v: string } | undefined => {
    if (!picked(kind, o)) return undefined;
    if (refuse) {
      leftOut.push({ kind, id: o.id, name: o.name ?? "", why: refuse });
      return undefined;
    }
    const names = used.get(kind) ?? new Set<string>();
    used.set(kind, names);
    const base = logical(o.name ?? o.id);
    let name = base;
    for (let i = 2; names.has(name); i++) name = `${base}-${i}`;
    names.add(name);
    const v = variable(name, kind);
    vars.set(o.id, v);
    declared.push({ kind, name, id: o.id });
    return { name, v };
  };
  /** An id as a reference to its resource when the program declares it, else as written. */
  const ref = (id: string, what: string): string => {
    const v = vars.get(id);
    if (v) return `${v}.id`;
    notes.push(`${what} names ${id}, which the program does not declare: written as the id (adopt it too, or keep it outside the stack)`);
    return lit(id);
  };
  /** Env values from config (secret): the keys in the program, the values set by the user. */
  const envFromConfig = (v: string, env: Record<string, string>): string | undefined => {
    const keys = Object.keys(env).sort();
    if (keys.length === 0) return undefined;
    const key = `${v}Env`;
    for (const k of keys) config.push({ key: `${key}.${k}`, what: `env ${k}` });
    return `config.requireSecretObject<Record<string, string>>(${lit(key)})`;
  };
  const unfinished = (name: unknown) => (isPendingName(name) ? "an unfinished create of a stack (its name ends in ~creating): that stack's next up takes it over or deletes it" : undefined);
  const declare = (kind: Kind, v: string, name: string, fields: [string, string | undefined][], id: string) => {
    const body = fields.filter(([, value]) => value !== undefined).map(([k, value]) => `  ${k}: ${value},`);
    blocks.push([`const ${v} = new ${kind}(${lit(name)}, {`, ...body, `  adopt: ${lit(id)},`, "});"].join("\n"));
  };

  for (const r of lists.registries as Registry[]) {
    const t = take("RegistryCredential", r, unfinished(r.name));
    if (!t) continue;
    config.push({ key: `${t.v}Username`, what: `the user name of registry credential ${r.id} ("${r.name}")` });
    config.push({ key: `${t.v}Password`, what: `the password or token of registry credential ${r.id} ("${r.name}")` });
    declare("RegistryCredential", t.v, t.name, [
      ["name", lit(r.name)],
      ["username", `config.requireSecret(${lit(`${t.v}Username`)})`],
      ["password", `config.requireSecret(${lit(`${t.v}Password`)})`],
    ], r.id);
  }
  for (const n of lists.networkVolumes as NetworkVolume[]) {
    const t = take("NetworkVolume", n, unfinished(n.name));
    if (!t) continue;
    declare("NetworkVolume", t.v, t.name, [["name", lit(n.name)], ["size", lit(n.size)], ["dataCenter", lit(n.dataCenter)], ["type", n.type ? lit(n.type) : undefined]], n.id);
  }
  for (const tpl of lists.templates as Template[]) {
    const t = take("Template", tpl, unfinished(tpl.name));
    if (!t) continue;
    declare("Template", t.v, t.name, [
      ["name", lit(tpl.name)],
      ["image", lit(tpl.image)],
      ["serverless", lit(tpl.serverless)],
      ["args", lit(tpl.args)],
      ["disk", lit(tpl.disk)],
      ["ports", lit(tpl.ports)],
      ["env", envFromConfig(t.v, tpl.env) ?? "{}"],
      ["registry", tpl.registry ? ref(tpl.registry, `template ${tpl.id}'s registry`) : "null"],
      ["mounts", tpl.mounts?.persistent ? lit({ persistent: { size: tpl.mounts.persistent.size, path: tpl.mounts.persistent.path } }) : undefined],
      ["public", lit(tpl.public)],
      ["category", lit(tpl.category)],
    ], tpl.id);
  }
  for (const p of lists.pods as Pod[]) {
    if (p.status === "TERMINATED") continue;
    const stack = p.env?.[STACK_MARK_ENV];
    const marked =
      typeof p.env?.[OWNER_ENV] === "string"
        ? `made by a Pulumi stack's Pod${stack ? ` (stack ${stack})` : ""} (env ${OWNER_ENV}): it belongs in that stack, and adopt refuses it`
        : undefined;
    const t = take("Pod", p, unfinished(p.name) ?? marked);
    if (!t) continue;
    const env = Object.fromEntries(Object.entries(p.env ?? {}).filter(([k]) => !PLATFORM_ENV.has(k)));
    const network = p.mounts?.network?.[0];
    const mounts = p.mounts?.persistent
      ? lit({ persistent: { size: p.mounts.persistent.size, path: p.mounts.persistent.path } })
      : network
        ? `{ network: [{ volumeId: ${ref(network.volumeId, `pod ${p.id}'s network mount`)}, path: ${lit(network.path)} }] }`
        : undefined;
    declare("Pod", t.v, t.name, [
      ["name", lit(p.name)],
      ["image", lit(p.image)],
      ["args", p.args ? lit(p.args) : undefined],
      ["disk", lit(p.disk)],
      ["ports", lit(p.ports)],
      ["env", envFromConfig(t.v, env)],
      ["registry", p.registry ? ref(p.registry, `pod ${p.id}'s registry`) : undefined],
      ["gpu", p.gpu ? lit({ id: p.gpu.id, count: p.gpu.count }) : undefined],
      ["cpu", p.cpu ? lit({ id: p.cpu.id, vcpuCount: p.cpu.vcpuCount }) : undefined],
      ["cloud", lit(p.cloud)],
      ["mounts", mounts],
      ["globalNetworking", p.globalNetworking?.enabled ? "true" : undefined],
      ["locked", p.locked ? "true" : undefined],
      ["desiredStatus", p.status === "EXITED" ? lit("EXITED") : undefined],
    ], p.id);
  }
  for (const e of lists.endpoints as Endpoint[]) {
    const t = take("ServerlessEndpoint", e, unfinished(e.name));
    if (!t) continue;
    declare("ServerlessEndpoint", t.v, t.name, [
      ["name", lit(e.name)],
      ["type", lit(e.type ?? "QB")],
      ["gpuIds", lit(e.gpuIds)],
      ["gpuCount", e.gpuCount == null ? undefined : lit(e.gpuCount)],
      ["templateId", ref(e.templateId, `endpoint ${e.id}'s template`)],
      ["workersMin", lit(e.workersMin ?? 0)],
      ["workersMax", lit(e.workersMax ?? 0)],
      ["idleTimeout", e.idleTimeout == null ? undefined : lit(e.idleTimeout)],
      ["scalerType", e.scalerType == null ? undefined : lit(e.scalerType)],
      ["scalerValue", e.scalerValue == null ? undefined : lit(e.scalerValue)],
      ["flashBootType", e.flashBootType == null ? undefined : lit(e.flashBootType)],
      ["networkVolumeId", e.networkVolumeId ? ref(e.networkVolumeId, `endpoint ${e.id}'s network volume`) : undefined],
      ["locations", e.locations ? lit(e.locations) : undefined],
      ["executionTimeoutMs", e.executionTimeoutMs == null ? undefined : lit(e.executionTimeoutMs)],
    ], e.id);
  }

  const imported = [...new Set(declared.map((d) => d.kind))].sort();
  const report = [
    `Adopts ${declared.length} object${declared.length === 1 ? "" : "s"}: the first \`pulumi up\` takes each over and changes nothing.`,
    ...(config.length > 0 ? ["Set these first (values from the console or your secrets store; none is written here):", ...config.map((c) => `  pulumi config set --secret ${c.key.includes(".") ? `--path ${c.key}` : c.key} <${c.what}>`)] : []),
    ...(leftOut.length > 0 ? ["Left out:", ...leftOut.map((l) => `  ${l.kind} ${l.id} ("${l.name}"): ${l.why}`)] : []),
    ...(notes.length > 0 ? ["Notes:", ...notes.map((n) => `  ${n}`)] : []),
  ];
  const text = [
    "// Written by `computeplatform-account program` from what the account runs.",
    ...report.map((l) => `// ${l}`.trimEnd()),
    ...(config.length > 0 ? ['import * as pulumi from "@pulumi/pulumi";'] : []),
    `import { ${imported.join(", ")} } from "pulumi-computeplatform";`,
    "",
    ...(config.length > 0 ? ["const config = new pulumi.Config();", ""] : []),
    blocks.join("\n\n"),
    "",
  ].join("\n");
  return { text: imported.length === 0 ? `${report.map((l) => `// ${l}`).join("\n")}\nexport {};\n` : text, declared, leftOut, config, notes };
}

/** The report alone, as the command prints it. */
export function programReport(p: WrittenProgram): string {
  return p.text
    .split("\n")
    .filter((l) => l.startsWith("// ") && !l.startsWith("// Written by"))
    .map((l) => l.slice(3))
    .join("\n");
}
