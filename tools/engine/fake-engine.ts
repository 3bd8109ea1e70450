// The engine's own gRPC service, played on loopback: the plugin's one argument is its address.
import { emptyproto, engproto, engrpc, grpc } from "./proto";

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
