// The plugin process: Pulumi's dynamic-provider plugin started as the engine starts it, and
// each provider call marshalled as the engine marshals it.
import { type ChildProcess, spawn } from "node:child_process";
import { toCallError, type ProviderCallError } from "./errors";
import { FakeEngine } from "./fake-engine";
import { emptyproto, grpc, provproto, provrpc } from "./proto";
import { addressed } from "./urn";
import { annotateSecrets, fromStruct, secret, toStruct } from "./wire";


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
  /**
   * Upper bound for the plugin to print its port: a bound for a hung start, not a speed target.
   * On a 2-core machine at a load average near 30 the plugin took 7.5 s alone and over 20 s
   * beside two jest workers.
   * @default 60000
   */
  startTimeoutMs?: number;
  /** Deadline of each gRPC call. @default 60000 */
  callTimeoutMs?: number;
}

export interface DiffResult {
  changes: "none" | "some" | "unknown";
  replaces: string[];
  deleteBeforeReplace: boolean;
  /** The keys the provider says changed (DiffResponse `diffs`, the engine's ChangedKeys). */
  diffs: string[];
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
        reject(new Error(`plugin printed no port within ${opts.startTimeoutMs ?? 60_000} ms; stderr: ${err}`));
      }, opts.startTimeoutMs ?? 60_000);
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
    }).catch(async (e: unknown) => {
      await engine.close();
      throw e;
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
    // falls back to Configure for the protocol. A plugin that fails either is stopped, not left running.
    try {
      await plugin.call("handshake", new provproto.ProviderHandshakeRequest()).catch((e: ProviderCallError) => {
        if (e.code !== grpc.status.UNIMPLEMENTED) throw e;
      });
      await plugin.call("getPluginInfo", new emptyproto.Empty());
    } catch (e) {
      await plugin.stop();
      throw e;
    }
    return plugin;
  }

  /** The plugin process's id (a benchmark samples its memory). */
  get pid(): number | undefined {
    return this.child.pid;
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
    return { changes, replaces: resp.getReplacesList(), deleteBeforeReplace: resp.getDeletebeforereplace(), diffs: resp.getDiffsList() };
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
    const outputs = fromStruct(resp.getProperties());
    // As the engine's Read: a provider that takes no secrets gets the secret bit of each old
    // property back on the property of the same name.
    if (this.acceptSecrets) return { id: resp.getId(), outputs, inputs };
    return {
      id: resp.getId(),
      outputs: annotateSecrets(outputs, oldOutputs),
      inputs: inputs && annotateSecrets(inputs, oldInputs),
    };
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
