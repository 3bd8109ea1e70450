/**
 * Engine-faithful harness: the Pulumi CLI cannot be installed here, so this file plays the
 * engine's side around Pulumi's own dynamic-provider plugin.
 *
 * What is real: the plugin (`@pulumi/pulumi/cmd/dynamic-provider`, resolved from the project
 * directory as the engine's `pulumi-resource-pulumi-nodejs` script does), started on the repo's
 * Node 22 with the engine address as its only argument, the project directory as cwd, and the
 * environment the engine gives it (`PULUMI_NODEJS_PROJECT`, `PULUMI_PROJECT`, `PULUMI_CONFIG`);
 * the gRPC stubs and protobuf classes that @pulumi/pulumi ships; the `__provider` text, produced
 * by the SDK's own serializer under `pulumi.runtime.setMocks` (see `captureProgram`).
 * What is played: the engine's choice and order of calls, and how it marshals properties
 * (Configure gets secrets as signature objects; the CRUD calls get them in plain text, because
 * the plugin's ConfigureResponse says acceptSecrets=false; unknowns only in preview).
 *
 * API
 * ```ts
 * const regs = await captureProgram(() => { new Pod("gpu", {...}) }, { project, stack, config });
 * const regs = await captureProgramFile("examples/quickstart/index.js", { cwd, config }); // child node
 * const plugin = await ProviderPlugin.start({ cwd: EXAMPLE_DIR, project: "quickstart", config });
 * await plugin.configure(config, secretKeys);            // what the engine does once per plugin
 * const stack = new EngineStack(plugin, { project, stack: "dev" });
 * await stack.preview(regs)  // Check (+ Diff for existing), unknowns allowed; nothing applied
 * await stack.up(regs)       // Check; Create | Diff -> Update | replace (Check again, then
 *                            // Create+Delete, or Delete+Create with deleteBeforeReplace); deletes
 * await stack.refresh()      // Read(id, old outputs, old inputs)
 * await stack.destroy()      // Delete in reverse order
 * stack.resources            // the state: urn -> { id, inputs, outputs, initErrors }
 * stack.calls                // every gRPC call made, in order: "Check urn", "Create urn", ...
 * plugin.transcript()        // stdout + stderr + engine Log messages, to scan for secrets
 * await plugin.stop();
 * ```
 * Each `up`/`preview`/... returns `{ steps, failures?, error? }`: a step is `{ urn, op, diff? }`;
 * `failures` are Check failures (`{ property, reason }`), which stop the operation as they stop
 * the engine; an error is a `ProviderCallError` with the plugin's message and, for a create or
 * update that failed after the resource came to exist, `initFailure: { id, outputs, reasons }`
 * (the engine keeps that id, with those outputs, in state; so does `EngineStack`).
 *
 * How the plugin finds this package: it loads `__provider` with require-from-string, whose
 * module paths start at the plugin's cwd, so `require("pulumi-computeplatform")` resolves from
 * the project directory, as from a user's repo. Here the project directory is an example
 * (`examples/quickstart`): the root package.json declares `examples/*` as workspaces and each
 * example depends on `"pulumi-computeplatform": "file:../.."`, so `npm install` links
 * node_modules/pulumi-computeplatform to the repo root and the name resolves to `dist/`
 * through the exports map. So the plugin runs the built package: `npm run build` first
 * (`npm test` does it in `pretest`).
 *
 * Logs: the engine passes its address only as the plugin's argument, which the Node.js plugin
 * ignores; `pulumi.log` inside a provider therefore prints to the plugin's stdout, which the
 * engine relays to the user. `transcript()` holds stdout, stderr and any engine Log call.
 *
 * Not modelled: parallel steps (one resource at a time, in registration order; deletes in
 * reverse), `protect`, `replaceOnChanges`, dependency-driven ordering of deletes, resource
 * references. Preview never calls Create: the plugin does not support provider previews.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import * as path from "node:path";
import { isDeepStrictEqual } from "node:util";

const PULUMI_DIR = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
/** Load a module as @pulumi/pulumi itself resolves it, so protobuf classes match its stubs. */
const fromPulumi = (id: string): any => require(require.resolve(id, { paths: [PULUMI_DIR] }));

const grpc = fromPulumi("@grpc/grpc-js");
const provrpc = fromPulumi("@pulumi/pulumi/proto/provider_grpc_pb");
const provproto = fromPulumi("@pulumi/pulumi/proto/provider_pb");
const engrpc = fromPulumi("@pulumi/pulumi/proto/engine_grpc_pb");
const engproto = fromPulumi("@pulumi/pulumi/proto/engine_pb");
const statusproto = fromPulumi("@pulumi/pulumi/proto/status_pb");
const structproto = fromPulumi("google-protobuf/google/protobuf/struct_pb");
const emptyproto = fromPulumi("google-protobuf/google/protobuf/empty_pb");

const runner: {
  capture(program: () => unknown, opts: CaptureOptions): Promise<Registration[]>;
} = require("./capture-runner.js");

/** The engine's marker for a value not known yet (preview only). */
/**
 * The project directory the plugin runs in, as the engine runs it in the program's directory:
 * the quickstart example, whose node_modules links this package by name.
 */
export const PROJECT_DIR = path.resolve(__dirname, "../../examples/quickstart");
export const PROJECT = "quickstart";
/** Stack config keys the engine marks secret in Configure. */
export const SECRET_KEYS = ["computeplatform:apiKey"];

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

function fromStruct(struct: any): Record<string, unknown> {
  return struct ? (struct.toJavaScript() as Record<string, unknown>) : {};
}

/** The engine's annotateSecrets: an output whose input was secret is stored secret. */
function annotateSecrets(outs: Record<string, unknown>, ins: Record<string, unknown>): Record<string, unknown> {
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

function containsSecret(value: unknown): boolean {
  if (isSecret(value)) return true;
  if (Array.isArray(value)) return value.some(containsSecret);
  if (typeof value === "object" && value !== null) return Object.values(value).some(containsSecret);
  return false;
}

// ---------------------------------------------------------------------------------------------
// Programs under mocks

/** One RegisterResource request, as the SDK sent it (inputs in wire form). */
export interface Registration {
  type: string;
  name: string;
  custom: boolean;
  inputs: Record<string, unknown>;
  options: {
    deleteBeforeReplace: boolean;
    protect: boolean;
    ignoreChanges: string[];
    replaceOnChanges: string[];
    additionalSecretOutputs: string[];
    dependencies: string[];
  };
}

export interface CaptureOptions {
  project?: string;
  stack?: string;
  /** Mocks in preview mode. @default false */
  preview?: boolean;
  /** Stack config, full keys (`computeplatform:apiUrl`). */
  config?: Record<string, string>;
  /** Which config keys are secret. */
  secretKeys?: string[];
  /** Where the program's own `@pulumi/pulumi` is resolved from. @default process.cwd() */
  cwd?: string;
  /** Extra environment of the program process (`captureProgramFile` only). */
  env?: Record<string, string | undefined>;
}

/**
 * Run a program function in this process under `setMocks`; returns the custom resources'
 * registrations (the stack resource is left out). Runs after jest's transform, so a function
 * defined in a test file serializes as the transformed text; use `captureProgramFile` when the
 * exact compiled text matters.
 */
export async function captureProgram(program: () => unknown, opts: CaptureOptions = {}): Promise<Registration[]> {
  const regs = await runner.capture(program, opts);
  return regs.filter((r) => r.custom);
}

/**
 * Run a compiled program file (CommonJS) in a child `node`, the way the language host runs it:
 * no test transform, cwd = its directory unless given, so `__provider` is the exact text
 * `pulumi up` would store.
 */
export async function captureProgramFile(file: string, opts: CaptureOptions = {}): Promise<Registration[]> {
  const cwd = opts.cwd ?? path.dirname(file);
  const script = path.join(__dirname, "capture-runner.js");
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      [script, path.resolve(file), JSON.stringify({ ...opts, env: undefined, cwd })],
      { cwd, env: { ...process.env, ...opts.env }, timeout: 30_000, maxBuffer: 16 * 1024 * 1024 },
      (err, out, errOut) => (err ? reject(new Error(`program ${file} failed: ${errOut || err.message}`)) : resolve(out)),
    );
  });
  const regs: Registration[] = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}").registrations;
  return regs.filter((r) => r.custom);
}

// ---------------------------------------------------------------------------------------------
// The fake engine service

export interface EngineLog {
  severity: string;
  message: string;
  urn: string;
}

const SEVERITY: Record<number, string> = Object.fromEntries(
  Object.entries(engproto.LogSeverity as Record<string, number>).map(([name, n]) => [n, name.toLowerCase()]),
);

/** A loopback Engine service: its address is the plugin's argument; it records Log calls. */
export class FakeEngine {
  private constructor(
    private readonly server: any,
    readonly address: string,
    /** Every Log call received, in order. */
    readonly logs: EngineLog[],
  ) {}

  static async start(): Promise<FakeEngine> {
    const server = new grpc.Server();
    const logs: EngineLog[] = [];
    server.addService(engrpc.EngineService, {
      log: (call: any, cb: any) => {
        const r = call.request;
        logs.push({ severity: SEVERITY[r.getSeverity()] ?? String(r.getSeverity()), message: r.getMessage(), urn: r.getUrn() });
        cb(null, new emptyproto.Empty());
      },
      getRootResource: (_call: any, cb: any) => cb(null, new engproto.GetRootResourceResponse()),
      setRootResource: (_call: any, cb: any) => cb(null, new engproto.SetRootResourceResponse()),
      startDebugging: (_call: any, cb: any) => cb(null, new emptyproto.Empty()),
      requirePulumiVersion: (_call: any, cb: any) => cb(null, new engproto.RequirePulumiVersionResponse()),
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err: Error | null, p: number) =>
        err ? reject(err) : resolve(p),
      ),
    );
    return new FakeEngine(server, `127.0.0.1:${port}`, logs);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.tryShutdown(() => resolve()));
  }
}

// ---------------------------------------------------------------------------------------------
// The plugin

/** A failed gRPC call to the plugin, with what the engine would read from it. */
export class ProviderCallError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    readonly details: string,
    /** Set when the resource exists despite the failure (ErrorResourceInitFailed). */
    readonly initFailure?: { id: string; outputs: Record<string, unknown>; reasons: string[] },
  ) {
    super(`${method}: ${details}`);
    this.name = "ProviderCallError";
  }
}

export interface PluginOptions {
  /** The project directory: the plugin's cwd, from which `__provider` requires resolve. */
  cwd: string;
  /** Project name (`PULUMI_NODEJS_PROJECT`). */
  project: string;
  /** Stack config the engine also puts in `PULUMI_CONFIG` (plain text, secrets included). */
  config?: Record<string, string>;
  /** Extra environment on top of this process's (the engine passes its own environment on). */
  env?: Record<string, string | undefined>;
  /**
   * Also point the SDK inside the plugin at the fake engine (`PULUMI_NODEJS_ENGINE`), so
   * `pulumi.log` calls arrive as engine Log calls with their severity. The real engine does not
   * do this for providers: leave it off to see what a user sees.
   * @default false
   */
  logToEngine?: boolean;
  /** Upper bound for the plugin to print its port. @default 20000 */
  startTimeoutMs?: number;
  /** Deadline of each gRPC call. @default 60000 */
  callTimeoutMs?: number;
}

export interface DiffResult {
  changes: "none" | "some" | "unknown";
  replaces: string[];
  deleteBeforeReplace: boolean;
}

export interface CheckFailure {
  property: string;
  reason: string;
}

export class ProviderPlugin {
  private stdoutText = "";
  private stderrText = "";
  private exited: { code: number | null; signal: string | null } | undefined;
  /** From ConfigureResponse; decides whether CRUD calls carry secret markers. */
  acceptSecrets = false;

  private constructor(
    private readonly child: ChildProcess,
    private readonly client: any,
    readonly engine: FakeEngine,
    private readonly opts: PluginOptions,
  ) {}

  static async start(opts: PluginOptions): Promise<ProviderPlugin> {
    const engine = await FakeEngine.start();
    // As `pulumi-resource-pulumi-nodejs` does: resolve the plugin from the project directory.
    const entry = require.resolve("@pulumi/pulumi/cmd/dynamic-provider", { paths: [opts.cwd] });
    const env: Record<string, string | undefined> = {
      ...process.env,
      PULUMI_NODEJS_PROJECT: opts.project,
      PULUMI_PROJECT: opts.project,
      PULUMI_CONFIG: JSON.stringify(opts.config ?? {}),
      ...(opts.logToEngine ? { PULUMI_NODEJS_ENGINE: engine.address } : {}),
      ...opts.env,
    };
    const child = spawn(process.execPath, [entry, engine.address], { cwd: opts.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill();
        reject(new Error(`plugin printed no port within ${opts.startTimeoutMs ?? 20_000} ms; stderr: ${err}`));
      }, opts.startTimeoutMs ?? 20_000);
      const onData = (chunk: string) => {
        out += chunk;
        const line = out.split("\n")[0];
        if (out.includes("\n") && /^\d+$/.test(line.trim())) {
          clearTimeout(timer);
          child.stdout.off("data", onData);
          resolve(Number(line.trim()));
        }
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", (c: string) => {
        err += c;
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`plugin exited (${code}) before printing its port; stderr: ${err}`));
      });
    });
    const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const plugin = new ProviderPlugin(child, client, engine, opts);
    plugin.stdoutText = out.slice(out.indexOf("\n") + 1);
    plugin.stderrText = err;
    child.stdout.on("data", (c: string) => {
      plugin.stdoutText += c;
    });
    child.stderr.removeAllListeners("data");
    child.stderr.on("data", (c: string) => {
      plugin.stderrText += c;
    });
    child.removeAllListeners("exit");
    child.once("exit", (code, signal) => {
      plugin.exited = { code, signal };
    });
    // The engine handshakes first; the dynamic provider answers UNIMPLEMENTED and the engine
    // falls back to Configure for the protocol.
    await plugin.call("handshake", new provproto.ProviderHandshakeRequest()).catch((e: ProviderCallError) => {
      if (e.code !== grpc.status.UNIMPLEMENTED) throw e;
    });
    await plugin.call("getPluginInfo", new emptyproto.Empty());
    return plugin;
  }

  /** stdout after the port line, stderr, and every engine Log message. */
  transcript(): string {
    return [this.stdoutText, this.stderrText, ...this.engine.logs.map((l) => l.message)].join("\n");
  }

  /**
   * Wait, up to `timeoutMs`, until `text` shows in the transcript: the plugin writes and logs
   * without waiting for the reader, so a line may arrive just after the call that made it.
   */
  async waitForTranscript(text: string, timeoutMs = 5_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!this.transcript().includes(text)) {
      if (Date.now() > until) throw new Error(`"${text}" not in the plugin's transcript after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  get stdout(): string {
    return this.stdoutText;
  }

  get stderr(): string {
    return this.stderrText;
  }

  private call(method: string, req: any): Promise<any> {
    const deadline = new Date(Date.now() + (this.opts.callTimeoutMs ?? 60_000));
    return new Promise((resolve, reject) => {
      if (this.exited) {
        reject(new Error(`plugin has exited (${this.exited.code ?? this.exited.signal}); stderr: ${this.stderrText}`));
        return;
      }
      this.client[method](req, { deadline }, (err: any, resp: any) => {
        if (err) reject(toCallError(method, err));
        else resolve(resp);
      });
    });
  }

  /**
   * Configure as the engine does for the default `pulumi-nodejs` provider: every stack config
   * key with its namespace, secrets as signature objects (Configure always keeps secrets), and
   * the legacy `variables` map in plain text.
   */
  async configure(config: Record<string, string>, secretKeys: string[] = []): Promise<void> {
    const args: Record<string, unknown> = {};
    const req = new provproto.ConfigureRequest();
    for (const [k, v] of Object.entries(config)) {
      args[k] = secretKeys.includes(k) ? secret(v) : v;
      req.getVariablesMap().set(`pulumi-nodejs:config:${k}`, v);
    }
    req.setArgs(toStruct(args, { keepSecrets: true, keepUnknowns: true }));
    req.setAcceptsecrets(true);
    req.setAcceptresources(true);
    req.setSendsOldInputs(true);
    req.setSendsOldInputsToDelete(true);
    const resp = await this.call("configure", req);
    this.acceptSecrets = resp.getAcceptsecrets();
  }

  private marshal(props: Record<string, unknown>, preview: boolean): any {
    return toStruct(props, { keepSecrets: this.acceptSecrets, keepUnknowns: preview });
  }

  async check(
    urn: string,
    olds: Record<string, unknown>,
    news: Record<string, unknown>,
    opts: { preview?: boolean } = {},
  ): Promise<{ inputs: Record<string, unknown>; failures: CheckFailure[] }> {
    const req = new provproto.CheckRequest();
    addressed(req, urn);
    req.setOlds(this.marshal(olds, !!opts.preview));
    req.setNews(this.marshal(news, !!opts.preview));
    const resp = await this.call("check", req);
    const inputs = fromStruct(resp.getInputs());
    return {
      inputs: this.acceptSecrets ? inputs : annotateSecrets(inputs, news),
      failures: resp.getFailuresList().map((f: any) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  async diff(
    urn: string,
    id: string,
    oldInputs: Record<string, unknown>,
    oldOutputs: Record<string, unknown>,
    news: Record<string, unknown>,
    opts: { preview?: boolean; ignoreChanges?: string[] } = {},
  ): Promise<DiffResult> {
    const req = new provproto.DiffRequest();
    addressed(req, urn, id);
    req.setOldInputs(this.marshal(oldInputs, !!opts.preview));
    req.setOlds(this.marshal(oldOutputs, !!opts.preview));
    req.setNews(this.marshal(news, !!opts.preview));
    req.setIgnorechangesList(opts.ignoreChanges ?? []);
    const resp = await this.call("diff", req);
    const C = provproto.DiffResponse.DiffChanges;
    const changes = resp.getChanges() === C.DIFF_SOME ? "some" : resp.getChanges() === C.DIFF_NONE ? "none" : "unknown";
    return { changes, replaces: resp.getReplacesList(), deleteBeforeReplace: resp.getDeletebeforereplace() };
  }

  async create(urn: string, props: Record<string, unknown>): Promise<{ id: string; outputs: Record<string, unknown> }> {
    const req = new provproto.CreateRequest();
    addressed(req, urn);
    req.setProperties(this.marshal(props, false));
    const resp = await this.call("create", req);
    const outputs = fromStruct(resp.getProperties());
    return { id: resp.getId(), outputs: this.acceptSecrets ? outputs : annotateSecrets(outputs, props) };
  }

  async read(
    urn: string,
    id: string,
    oldOutputs: Record<string, unknown>,
    oldInputs: Record<string, unknown>,
  ): Promise<{ id: string; outputs: Record<string, unknown>; inputs?: Record<string, unknown> }> {
    const req = new provproto.ReadRequest();
    addressed(req, urn, id);
    req.setProperties(this.marshal(oldOutputs, false));
    req.setInputs(this.marshal(oldInputs, false));
    const resp = await this.call("read", req);
    const inputs = resp.getInputs() ? fromStruct(resp.getInputs()) : undefined;
    return { id: resp.getId(), outputs: fromStruct(resp.getProperties()), inputs };
  }

  async update(
    urn: string,
    id: string,
    oldOutputs: Record<string, unknown>,
    news: Record<string, unknown>,
    oldInputs: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const req = new provproto.UpdateRequest();
    addressed(req, urn, id);
    req.setOlds(this.marshal(oldOutputs, false));
    req.setNews(this.marshal(news, false));
    req.setOldInputs(this.marshal(oldInputs, false));
    const resp = await this.call("update", req);
    const outputs = fromStruct(resp.getProperties());
    return this.acceptSecrets ? outputs : annotateSecrets(outputs, news);
  }

  async delete(urn: string, id: string, oldOutputs: Record<string, unknown>, oldInputs: Record<string, unknown>): Promise<void> {
    const req = new provproto.DeleteRequest();
    addressed(req, urn, id);
    req.setProperties(this.marshal(oldOutputs, false));
    req.setOldInputs(this.marshal(oldInputs, false));
    await this.call("delete", req);
  }

  /** Close the connection and end the plugin, as the engine does at the end of an operation. */
  async stop(): Promise<void> {
    this.client.close();
    if (!this.exited) {
      const gone = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
      this.child.kill("SIGTERM");
      const timer = setTimeout(() => this.child.kill("SIGKILL"), 5_000);
      await gone;
      clearTimeout(timer);
    }
    await this.engine.close();
  }
}

function toCallError(method: string, err: any): ProviderCallError {
  let initFailure: ProviderCallError["initFailure"];
  const bin = err.metadata?.get?.("grpc-status-details-bin")?.[0];
  if (bin) {
    const status = statusproto.Status.deserializeBinary(new Uint8Array(bin));
    for (const any of status.getDetailsList()) {
      if (any.getTypeName() === "pulumirpc.ErrorResourceInitFailed") {
        const detail = provproto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
        initFailure = { id: detail.getId(), outputs: fromStruct(detail.getProperties()), reasons: detail.getReasonsList() };
      }
    }
  }
  return new ProviderCallError(method, err.code, err.details ?? err.message, initFailure);
}

export function urnOf(stack: string, project: string, type: string, name: string): string {
  return `urn:pulumi:${stack}::${project}::${type}::${name}`;
}

/** Every resource request names its resource the same way; `id` once it exists. */
function addressed(req: any, urn: string, id?: string): void {
  if (id !== undefined) req.setId(id);
  req.setUrn(urn);
  req.setName(nameOf(urn));
  req.setType(typeOf(urn));
}

function nameOf(urn: string): string {
  return urn.split("::").at(-1) ?? "";
}

function typeOf(urn: string): string {
  return urn.split("::").at(-2) ?? "";
}

// ---------------------------------------------------------------------------------------------
// The engine's call sequences

export interface StateResource {
  urn: string;
  type: string;
  id: string;
  /** Inputs as checked, in wire form (secrets marked), as the engine stores them. */
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  options: Registration["options"];
  /** Set when a create or update failed after the resource existed. */
  initErrors?: string[];
}

export type StepOp = "create" | "same" | "update" | "replace" | "delete" | "refresh" | "read-gone";

export interface Step {
  urn: string;
  op: StepOp;
  diff?: DiffResult;
  failures?: CheckFailure[];
}

export interface OperationResult {
  steps: Step[];
  /** Check failures stop an operation as they stop the engine. */
  failures?: { urn: string; failures: CheckFailure[] };
  error?: ProviderCallError | Error;
}

/**
 * The engine's processIgnoreChanges: each listed property path (`a` or `a.b`) keeps its old
 * input value, or stays absent if it had none.
 */
export function ignoreChanges(
  news: Record<string, unknown>,
  olds: Record<string, unknown>,
  paths: string[],
): Record<string, unknown> {
  const result = structuredClone(news);
  for (const p of paths) {
    const keys = p.split(".");
    let from: unknown = olds;
    let to: Record<string, unknown> | undefined = result;
    for (const [i, k] of keys.entries()) {
      from = typeof from === "object" && from !== null ? (from as Record<string, unknown>)[k] : undefined;
      if (i === keys.length - 1) {
        if (from === undefined) delete to[k];
        else to[k] = structuredClone(from);
      } else {
        const next: unknown = to[k];
        if (typeof next !== "object" || next === null) break;
        to = next as Record<string, unknown>;
      }
    }
  }
  return result;
}

/** A stack's state and the engine logic that drives one plugin through an operation. */
export class EngineStack {
  readonly resources = new Map<string, StateResource>();
  /** Every provider call, in order: `Check <name>`, `Diff <name>`, `Create <name>`, ... */
  readonly calls: string[] = [];
  readonly project: string;
  readonly stack: string;

  constructor(
    readonly plugin: ProviderPlugin,
    opts: { project: string; stack: string },
  ) {
    this.project = opts.project;
    this.stack = opts.stack;
  }

  private urn(reg: Registration): string {
    return urnOf(this.stack, this.project, reg.type, reg.name);
  }

  private note(method: string, urn: string): void {
    this.calls.push(`${method} ${nameOf(urn)}`);
  }

  /** `pulumi preview`: Check (and Diff for existing resources) with unknowns allowed. */
  async preview(regs: Registration[]): Promise<OperationResult> {
    return this.run(regs, true);
  }

  /** `pulumi up`. */
  async up(regs: Registration[]): Promise<OperationResult> {
    return this.run(regs, false);
  }

  private async run(regs: Registration[], preview: boolean): Promise<OperationResult> {
    const steps: Step[] = [];
    const p = this.plugin;
    try {
      for (const reg of regs) {
        const urn = this.urn(reg);
        const old = this.resources.get(urn);
        // The engine applies ignoreChanges to the program's inputs before anything else.
        const goal = old ? ignoreChanges(reg.inputs, old.inputs, reg.options.ignoreChanges) : reg.inputs;
        this.note("Check", urn);
        let checked = await p.check(urn, old?.inputs ?? {}, goal, { preview });
        if (checked.failures.length > 0) {
          return { steps, failures: { urn, failures: checked.failures } };
        }
        if (!old) {
          steps.push({ urn, op: "create" });
          if (!preview) await this.create(urn, reg, checked.inputs);
          continue;
        }
        this.note("Diff", urn);
        const diff = await p.diff(urn, old.id, old.inputs, old.outputs, checked.inputs, {
          preview,
          ignoreChanges: reg.options.ignoreChanges,
        });
        if (diff.replaces.length > 0) {
          steps.push({ urn, op: "replace", diff });
          if (preview) continue;
          // A replacement gets fresh defaults: the engine checks again without the old inputs.
          this.note("Check", urn);
          checked = await p.check(urn, {}, goal);
          if (checked.failures.length > 0) return { steps, failures: { urn, failures: checked.failures } };
          if (diff.deleteBeforeReplace || reg.options.deleteBeforeReplace) {
            await this.delete(old);
            await this.create(urn, reg, checked.inputs);
          } else {
            const oldCopy = { ...old };
            await this.create(urn, reg, checked.inputs);
            await this.delete(oldCopy, false);
          }
        } else if (
          diff.changes === "some" ||
          // A provider that does not say (DIFF_UNKNOWN): the engine compares old and new inputs.
          (diff.changes === "unknown" && !isDeepStrictEqual(reveal(old.inputs), reveal(checked.inputs)))
        ) {
          steps.push({ urn, op: "update", diff });
          if (preview) continue;
          this.note("Update", urn);
          try {
            const outputs = await p.update(urn, old.id, old.outputs, checked.inputs, old.inputs);
            this.resources.set(urn, { ...old, inputs: checked.inputs, outputs, options: reg.options, initErrors: undefined });
          } catch (e) {
            if (e instanceof ProviderCallError && e.initFailure) {
              this.resources.set(urn, { ...old, outputs: e.initFailure.outputs, initErrors: e.initFailure.reasons });
            }
            throw e;
          }
        } else {
          steps.push({ urn, op: "same", diff });
          if (!preview) this.resources.set(urn, { ...old, inputs: checked.inputs, options: reg.options });
        }
      }
      // Resources no longer in the program go, last registered first.
      const wanted = new Set(regs.map((r) => this.urn(r)));
      for (const res of [...this.resources.values()].reverse()) {
        if (wanted.has(res.urn)) continue;
        steps.push({ urn: res.urn, op: "delete" });
        if (!preview) await this.delete(res);
      }
      return { steps };
    } catch (error) {
      return { steps, error: error as Error };
    }
  }

  private async create(urn: string, reg: Registration, inputs: Record<string, unknown>): Promise<void> {
    this.note("Create", urn);
    try {
      const { id, outputs } = await this.plugin.create(urn, inputs);
      this.resources.set(urn, { urn, type: reg.type, id, inputs, outputs, options: reg.options });
    } catch (e) {
      // The engine keeps a resource that exists but failed to initialize, so the next
      // operation updates or deletes it instead of creating a second one.
      if (e instanceof ProviderCallError && e.initFailure) {
        const f = e.initFailure;
        this.resources.set(urn, { urn, type: reg.type, id: f.id, inputs, outputs: f.outputs, options: reg.options, initErrors: f.reasons });
      }
      throw e;
    }
  }

  private async delete(res: StateResource, forget = true): Promise<void> {
    this.note("Delete", res.urn);
    await this.plugin.delete(res.urn, res.id, res.outputs, res.inputs);
    if (forget && this.resources.get(res.urn)?.id === res.id) this.resources.delete(res.urn);
  }

  /** `pulumi refresh`: Read each resource with its old outputs and inputs. */
  async refresh(): Promise<OperationResult> {
    const steps: Step[] = [];
    try {
      for (const res of [...this.resources.values()]) {
        this.note("Read", res.urn);
        const r = await this.plugin.read(res.urn, res.id, res.outputs, res.inputs);
        if (!r.id) {
          this.resources.delete(res.urn);
          steps.push({ urn: res.urn, op: "read-gone" });
          continue;
        }
        this.resources.set(res.urn, { ...res, id: r.id, outputs: r.outputs, inputs: r.inputs ?? res.inputs });
        steps.push({ urn: res.urn, op: "refresh" });
      }
      return { steps };
    } catch (error) {
      return { steps, error: error as Error };
    }
  }

  /** `pulumi destroy`: Delete every resource, last created first. */
  async destroy(): Promise<OperationResult> {
    const steps: Step[] = [];
    try {
      for (const res of [...this.resources.values()].reverse()) {
        await this.delete(res);
        steps.push({ urn: res.urn, op: "delete" });
      }
      return { steps };
    } catch (error) {
      return { steps, error: error as Error };
    }
  }

  /** The whole state as text: what a state file would hold (before secret encryption). */
  stateText(): string {
    return JSON.stringify([...this.resources.values()]);
  }
}
