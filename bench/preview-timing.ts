// How benchmark 7 times a preview: every Check and Diff the plugin answers, in all and call by
// call, and how much of that the rig spent on its own side of the wire. The rig (tools/engine)
// plays Pulumi's engine in JavaScript with google-protobuf: it encodes each request's properties
// and decodes each response, work the CLI's engine does in Go. That share grows with the size
// of a resource's state, so it is counted apart, to tell it from the plugin's side.
import type { ProviderPlugin } from "../tools/engine";
import { provproto, structproto } from "../tools/engine/proto";

/** Each call's ms, in the order made, by resource kind and method (`Pod check`, `StackCost diff`). */
export type CallTimes = Record<string, number[]>;

export interface PreviewTiming {
  checkMs: number;
  diffMs: number;
  calls: number;
  byCall: CallTimes;
  /** Of checkMs + diffMs, the ms this process spent encoding requests and decoding responses (the engine's side). */
  rigMs: number;
}

/** Wrap `owner[name]` so that its time adds to `into.rigMs`; returns the undo. */
function timed(owner: any, name: string, into: { rigMs: number }): () => void {
  const original = owner[name];
  owner[name] = function (this: unknown, ...args: unknown[]) {
    const t0 = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      into.rigMs += performance.now() - t0;
    }
  };
  return () => {
    owner[name] = original;
  };
}

/**
 * Time every Check and Diff `plugin` answers until `stop()`; `figures()` are those so far. The
 * rig's encoding (Struct.fromJavaScript, the requests' serializeBinary) and decoding (the
 * responses' deserializeBinary, Struct.toJavaScript) is timed by wrapping those methods in this
 * process while it runs: one preview at a time.
 */
export function timeCheckAndDiff(plugin: ProviderPlugin): { stop(): void; figures(): PreviewTiming } {
  const totals: PreviewTiming = { checkMs: 0, diffMs: 0, calls: 0, byCall: {}, rigMs: 0 };
  const undo = [
    timed(structproto.Struct, "fromJavaScript", totals),
    timed(structproto.Struct.prototype, "toJavaScript", totals),
    timed(provproto.CheckRequest.prototype, "serializeBinary", totals),
    timed(provproto.DiffRequest.prototype, "serializeBinary", totals),
    timed(provproto.CheckResponse, "deserializeBinary", totals),
    timed(provproto.DiffResponse, "deserializeBinary", totals),
  ];
  const wrap = <K extends "check" | "diff">(name: K, into: "checkMs" | "diffMs") => {
    const original = plugin[name].bind(plugin) as (...args: unknown[]) => Promise<unknown>;
    (plugin as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      const t0 = performance.now();
      try {
        return await original(...args);
      } finally {
        const ms = performance.now() - t0;
        totals[into] += ms;
        totals.calls++;
        // The URN's type, `pulumi-nodejs:dynamic/computeplatform:Pod`: its last part.
        const kind = String(args[0]).split("::")[2]?.split(":").at(-1) ?? "?";
        (totals.byCall[`${kind} ${name}`] ??= []).push(ms);
      }
    };
  };
  wrap("check", "checkMs");
  wrap("diff", "diffMs");
  return { stop: () => undo.forEach((u) => u()), figures: () => ({ ...totals, byCall: { ...totals.byCall } }) };
}
