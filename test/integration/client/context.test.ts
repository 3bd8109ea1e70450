// What every API class shares (context.ts): one REST call named by path, verb and body, sent to
// the address its setting names, with a create (POST) retried only where the server provably did
// nothing and every other verb retried on an ambiguous failure; the request checks that fail
// before anything is sent; ids as path segments; query strings as the contract writes them
// (`style: form, explode: false`). The REST call runs against a scripted loopback server.
import { z } from "zod";
import { ClientContext, checkParams, seg, withQuery } from "../../../src/client/context";
import { InternalServerError, NotFoundError, RequestValidationError, ResponseValidationError } from "../../../src/client/core/errors";
import { Transport } from "../../../src/client/core/transport";
import { FakeClock } from "../../helpers/fake-clock";
import { type Handler, startLoopback } from "../../helpers/loopback";

const KEY = "cp_ctx_key_00112233";
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** A context whose two addresses are two loopback servers, each answering with `handler`. */
async function rig(handler: Handler) {
  const api = await startLoopback(handler);
  const serverless = await startLoopback(handler);
  const clock = new FakeClock();
  const transport = new Transport({
    apiKey: KEY,
    timeoutMs: 5000,
    maxRetries: 2,
    maxRetryDelayMs: 1000,
    clock,
    pacing: false,
    logger: undefined,
    random: () => 0,
    backoff: { baseDelayMs: 1, maxBackoffMs: 1 },
  });
  closers.push(() => transport.close(), api.close, serverless.close);
  return { api, serverless, ctx: new ClientContext(transport, `${api.url}/v2`, `${serverless.url}/v2`) };
}

const Thing = z.object({ id: z.string() });

describe("ClientContext.rest", () => {
  it("sends the verb to the API address with a bearer key and the body as JSON, and reads the answer with the schema", async () => {
    const { api, serverless, ctx } = await rig(() => ({ status: 200, body: { id: "t1", extra: 1 } }));
    await expect(ctx.rest("POST", "/things", { name: "a" }, Thing, "a Thing")).resolves.toEqual({ id: "t1" });
    expect(serverless.seen).toHaveLength(0);
    const [req] = api.seen;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v2/things");
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(req.body)).toEqual({ name: "a" });
  });

  it("no body sends none; the serverless setting goes to the serverless address", async () => {
    const { api, serverless, ctx } = await rig(() => ({ status: 200, body: { id: "e" } }));
    await ctx.rest("GET", "/endpoints/e", undefined, Thing, "an endpoint", { setting: "serverlessUrl" });
    expect(api.seen).toHaveLength(0);
    expect(serverless.seen[0].body).toBe("");
    expect(serverless.seen[0].headers["content-type"]).toBeUndefined();
  });

  it("without a schema the answer is undefined, whatever the body", async () => {
    const { ctx } = await rig(() => ({ status: 200, body: { anything: true } }));
    await expect(ctx.rest("DELETE", "/things/t", undefined, undefined, "a Thing")).resolves.toBeUndefined();
  });

  it("an answer that breaks the schema is a ResponseValidationError naming the field", async () => {
    const { ctx } = await rig(() => ({ status: 200, body: { id: 5 } }));
    await expect(ctx.rest("GET", "/things/t", undefined, Thing, "a Thing")).rejects.toThrow(ResponseValidationError);
    await expect(ctx.rest("GET", "/things/t", undefined, Thing, "a Thing")).rejects.toThrow(/returned a Thing that breaks the contract: id is invalid/);
  });

  it("a POST is a create: a 5xx is not sent again (its look-up by name is the caller's)", async () => {
    const { api, ctx } = await rig(() => ({ status: 503, body: { title: "Unavailable" } }));
    await expect(ctx.rest("POST", "/things", {}, Thing, "a Thing")).rejects.toThrow(InternalServerError);
    expect(api.seen).toHaveLength(1);
  });

  it("any other verb is retried on a 5xx, up to maxRetries", async () => {
    const { api, ctx } = await rig(() => ({ status: 503, body: { title: "Unavailable" } }));
    await expect(ctx.rest("PATCH", "/things/t", {}, Thing, "a Thing")).rejects.toThrow(InternalServerError);
    expect(api.seen).toHaveLength(3);
  });

  it("a POST named idempotent is retried like any read", async () => {
    const { api, ctx } = await rig((_, i) => (i === 0 ? { status: 503, body: {} } : { status: 200, body: { id: "t" } }));
    await expect(ctx.rest("POST", "/things/t/stop", undefined, Thing, "a Thing", { mode: "idempotent" })).resolves.toEqual({ id: "t" });
    expect(api.seen).toHaveLength(2);
  });

  it("a delete retried after an ambiguous failure that finds the object gone is that delete's success, when asked", async () => {
    const answers: Handler = (_, i) => (i === 0 ? { status: 502, body: {} } : { status: 404, body: { title: "Not found" } });
    const asked = await rig(answers);
    await expect(asked.ctx.rest("DELETE", "/things/t", undefined, undefined, "a Thing", { notFoundOnRetryIsSuccess: true })).resolves.toBeUndefined();
    expect(asked.api.seen).toHaveLength(2);
    const notAsked = await rig(answers);
    await expect(notAsked.ctx.rest("DELETE", "/things/t", undefined, undefined, "a Thing")).rejects.toThrow(NotFoundError);
  });

  it("onSend is called as each attempt leaves; a signal already aborted sends nothing", async () => {
    const { api, ctx } = await rig((_, i) => (i === 0 ? { status: 500, body: {} } : { status: 200, body: { id: "t" } }));
    const onSend = jest.fn();
    await ctx.rest("GET", "/things/t", undefined, Thing, "a Thing", { onSend });
    expect(onSend).toHaveBeenCalledTimes(2);
    const ac = new AbortController();
    const reason = new Error("cancelled");
    ac.abort(reason);
    await expect(ctx.rest("GET", "/things/t", undefined, Thing, "a Thing", { signal: ac.signal })).rejects.toBe(reason);
    expect(api.seen).toHaveLength(2);
  });

  it("a write-only value of the body never reaches the error", async () => {
    const { ctx } = await rig((req) => ({ status: 400, body: { title: "Bad", detail: `rejected ${JSON.parse(req.body).password}` } }));
    const err = await ctx.rest("POST", "/registries", { password: "pw-9f8e7d" }, Thing, "a credential", { writeOnly: ["pw-9f8e7d"] }).catch((e) => e);
    expect(err.message).toContain("rejected");
    expect(err.message).not.toContain("pw-9f8e7d");
  });
});

describe("checkParams", () => {
  const Params = z.object({ name: z.string().min(1), gpuCount: z.number().int().min(1).optional() }).strict();

  it("answers what the schema made of valid params", () => {
    expect(checkParams(Params, { name: "a" }, "pod params")).toEqual({ name: "a" });
  });

  it("bad params: a RequestValidationError naming every field and its rule", () => {
    let err: unknown;
    try {
      checkParams(Params, { gpuCount: 0, color: "red" }, "pod params");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RequestValidationError);
    expect((err as RequestValidationError).issues).toEqual([
      { path: "name", message: "is required" },
      { path: "gpuCount", message: "must be >= 1" },
      { path: "color", message: "is not an allowed property" },
    ]);
    expect((err as Error).message).toBe("Invalid pod params: name is required; gpuCount must be >= 1; color is not an allowed property");
  });
});

describe("seg", () => {
  it("is pathSegment under the field name id", () => {
    expect(seg("a/b")).toBe("a%2Fb");
    expect(() => seg("..")).toThrow("Invalid id: id must not be");
    expect(() => seg("")).toThrow("Invalid id: id must be a non-empty string");
  });
});

describe("withQuery", () => {
  it("leaves the path as it is when no entry is defined", () => {
    expect(withQuery("/pods", {})).toBe("/pods");
    expect(withQuery("/pods", { a: undefined })).toBe("/pods");
  });

  it("writes the defined entries in order, lists comma-separated, values encoded", () => {
    expect(withQuery("/pods", { gpuTypeId: ["NVIDIA A40", "NVIDIA L4"], includeMachine: true, skip: undefined, n: 0, name: "a&b" })).toBe(
      "/pods?gpuTypeId=NVIDIA+A40%2CNVIDIA+L4&includeMachine=true&n=0&name=a%26b",
    );
    expect(withQuery("/pods", { empty: "" })).toBe("/pods?empty=");
  });
});
