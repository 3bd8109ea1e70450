// A failed provider call, read the way the engine reads it (ErrorResourceInitFailed included).
import { provproto, statusproto } from "./proto";
import { fromStruct } from "./wire";

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

export function toCallError(method: string, err: any): ProviderCallError {
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
