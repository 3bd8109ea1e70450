// The client against a hostile platform (issue 53, case 14): whatever a server puts in a
// problem's `detail` or `errors`, or a GraphQL answer's `errors`, the client's error is one of its
// own types, its message is bounded, and building it costs what reading the bounded part costs.
// Real HTTP on a loopback port, with answers written to break a careless client.
import { BadRequestError, PlatformError, UnprocessableEntityError } from "../../../../src/client";
import { ERROR_TEXT_LIMITS } from "../../../../src/client/core/errors";
import { loopbackClients } from "../../../helpers/loopback";

const { setup: start } = loopbackClients("cp_test_hostile_errors_0001");
const setup = async (...args: Parameters<typeof start>) => (await start(...args)).cp;

/** The longest message an error may carry: its bound, the cut's note and the where. */
const MAX_MESSAGE = ERROR_TEXT_LIMITS.message + 400;

const problem = (status: number, extra: Record<string, unknown>) => ({ status, headers: { "content-type": "application/problem+json" }, body: { title: "Unprocessable", status, ...extra } });

describe("a hostile problem+json answer", () => {
  test("a 60 KB validation entry of the shape the humanizer reads is cut, and read in one pass", async () => {
    // `$.` then spaces and no colon: the pattern the humanizer used backtracked over every split
    // of the spaces (quadratic: 0.36 s at 15 KB, 5 s at 60 KB); it is now read once, and cut first.
    const entry = `$.${" ".repeat(60_000)}x must be a string`;
    const cp = await setup(() => problem(422, { errors: [entry] }));
    const err = await cp.pods.get("pod-1").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnprocessableEntityError);
    expect((err as Error).message.length).toBeLessThanOrEqual(MAX_MESSAGE);
    expect((err as Error).message).toContain(`more characters`);
    expect((err as Error).message.startsWith("$.")).toBe(true);
    expect((err as UnprocessableEntityError).errors[0]!.length).toBeLessThanOrEqual(ERROR_TEXT_LIMITS.entry + 40);
  });

  test("an errors entry nested 20,000 deep is the client's own error, written a few levels deep", async () => {
    const deep = `${"[".repeat(20_000)}"bottom"${"]".repeat(20_000)}`;
    const cp = await setup(() => ({ status: 422, headers: { "content-type": "application/problem+json" }, raw: `{"title":"Unprocessable","status":422,"errors":[${deep}]}` }));
    const err = await cp.pods.get("pod-1").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnprocessableEntityError);
    expect(err).toBeInstanceOf(PlatformError);
    expect((err as Error).message).toContain(`${"[".repeat(ERROR_TEXT_LIMITS.depth)}[…]`);
    expect((err as Error).message).not.toContain("bottom");
  });

  test("a 5 MB detail is a bounded message, and the error keeps the bounded detail only", async () => {
    const detail = `gpu.id must be one of the catalog's ids; ${"x".repeat(5 * 1024 * 1024)}`;
    const cp = await setup(() => problem(400, { title: "Bad Request", detail }));
    const err = await cp.pods.get("pod-1").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as Error).message).toMatch(/^gpu\.id must be one of the catalog's ids; x+… \(\d+ more characters\) \[400 from GET \/v2\/pods\/pod-1\]$/);
    expect((err as Error).message.length).toBeLessThanOrEqual(ERROR_TEXT_LIMITS.text + 100);
    expect((err as BadRequestError).detail!.length).toBeLessThanOrEqual(ERROR_TEXT_LIMITS.text + 40);
  });

  test("100,000 errors entries keep the first ones and count the rest", async () => {
    const errors = Array.from({ length: 100_000 }, (_, i) => `$.env[${i}]: missing property 'key'`);
    const cp = await setup(() => problem(422, { errors }));
    const err = (await cp.pods.get("pod-1").catch((e: unknown) => e)) as UnprocessableEntityError;
    expect(err).toBeInstanceOf(UnprocessableEntityError);
    expect(err.message).toContain("env[0].key is required");
    expect(err.message).toContain(`(and ${100_000 - ERROR_TEXT_LIMITS.entries} more)`);
    expect(err.errors).toHaveLength(ERROR_TEXT_LIMITS.entries + 1);
    expect(err.message.length).toBeLessThanOrEqual(MAX_MESSAGE);
  });

  test("an entry 200,000 keys wide is written as its first keys", async () => {
    const wide = `{${Array.from({ length: 200_000 }, (_, i) => `"k${i}":${i}`).join(",")}}`;
    const cp = await setup(() => ({ status: 422, raw: `{"errors":[${wide}]}`, headers: { "content-type": "application/problem+json" } }));
    const err = (await cp.pods.get("pod-1").catch((e: unknown) => e)) as UnprocessableEntityError;
    expect(err).toBeInstanceOf(UnprocessableEntityError);
    expect(err.message).toContain('{"k0":0,"k1":1');
    expect(err.message).toContain(",…}");
    expect(err.message.length).toBeLessThanOrEqual(MAX_MESSAGE);
  });
});

describe("a hostile GraphQL answer", () => {
  test("1,000 errors of 5 KB each are a bounded error of the client's own", async () => {
    const message = "m".repeat(5 * 1024);
    const cp = await setup(() => ({ status: 200, body: { data: null, errors: Array.from({ length: 1_000 }, () => ({ message, extensions: { code: "BAD_USER_INPUT" } })) } }));
    const err = (await cp.endpoints.list().catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.message.length).toBeLessThanOrEqual(MAX_MESSAGE);
    expect(err.message).toContain(`(and ${1_000 - ERROR_TEXT_LIMITS.entries} more)`);
  });

  test("an error whose extensions nest 20,000 deep is the client's own error", async () => {
    const deep = `${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}`;
    const cp = await setup(() => ({ status: 200, raw: `{"data":null,"errors":[{"message":"bad input","extensions":{"code":"BAD_USER_INPUT","more":${deep}}}]}`, headers: { "content-type": "application/json" } }));
    const err = (await cp.endpoints.list().catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(PlatformError);
    expect(err.message).toContain("bad input");
  });
});
