// Replies as written: problem+json for REST failures, GraphQL's errors[] with a code for
// failures on /graphql, and the bytes on the socket (docs/emulator.md, "Rules it applies beyond
// the contract's shapes").
import { Writable } from "node:stream";
import type * as http from "node:http";
import { problem } from "../../../../../src/emulator/core/problem";
import { graphqlError, problemReply, send } from "../../../../../src/emulator/core/http/reply";

test("a REST failure is problem+json: title, status and detail, its errors when it has them, and its headers", () => {
  const err = problem(429, "over the minute quota");
  Object.assign(err.headers, { "retry-after": "12" });
  expect(problemReply(err)).toEqual({
    status: 429,
    body: { title: "Too Many Requests", status: 429, detail: "over the minute quota" },
    headers: { "content-type": "application/problem+json", "retry-after": "12" },
  });
  expect(problemReply(problem(422, "bad", ["$.name: required"])).body).toEqual({
    title: "Unprocessable Entity",
    status: 422,
    detail: "bad",
    errors: ["$.name: required"],
  });
});

test.each([
  [400, "BAD_REQUEST"],
  [401, "UNAUTHENTICATED"],
  [403, "FORBIDDEN"],
  [404, "NOT_FOUND"],
  [405, "METHOD_NOT_ALLOWED"],
  [413, "PAYLOAD_TOO_LARGE"],
  [415, "UNSUPPORTED_MEDIA_TYPE"],
  [429, "RATE_LIMITED"],
  [500, "INTERNAL_SERVER_ERROR"],
  [503, "INTERNAL_SERVER_ERROR"],
])("a GraphQL failure of status %d keeps the status and carries code %s", (status, code) => {
  expect(graphqlError(problem(status, "why"))).toEqual({ status, body: { errors: [{ message: "why", extensions: { code } }] }, headers: {} });
});

/** A response that records what send wrote. */
function response(destroyed = false) {
  const chunks: Buffer[] = [];
  const res = Object.assign(
    new Writable({
      write(chunk, _enc, done) {
        chunks.push(Buffer.from(chunk));
        done();
      },
    }),
    { destroyed, status: 0, headers: {} as Record<string, string> },
  );
  (res as unknown as { writeHead: unknown }).writeHead = (status: number, headers: Record<string, string>) => {
    res.status = status;
    res.headers = headers;
  };
  const done = new Promise<void>((resolve) => res.on("finish", () => resolve()));
  return { res, sent: async () => (await done, { status: res.status, headers: res.headers, text: Buffer.concat(chunks).toString() }) };
}

test("a JSON body is sent with its length and application/json unless a header names another type", async () => {
  const { res, sent } = response();
  send(res as unknown as http.ServerResponse, { status: 200, body: { a: "é" } }, false);
  expect(await sent()).toEqual({ status: 200, headers: { "content-type": "application/json", "content-length": "10" }, text: '{"a":"é"}' });
  const p = response();
  send(p.res as unknown as http.ServerResponse, problemReply(problem(404, "no pod")), true);
  const { headers } = await p.sent();
  expect(headers).toMatchObject({ "content-type": "application/problem+json", connection: "close" });
});

test("a 204, or a reply without a body, sends no body and no content type; a header of '' is left out", async () => {
  const { res, sent } = response();
  send(res as unknown as http.ServerResponse, { status: 204, body: { ignored: true }, headers: { "content-type": "application/json", "x-gone": "" } }, false);
  expect(await sent()).toEqual({ status: 204, headers: {}, text: "" });
});

test("raw bytes go out whole, and a stream of pieces in order, under the raw's content type", async () => {
  const png = response();
  send(png.res as unknown as http.ServerResponse, { status: 200, raw: { data: Buffer.from("PNGDATA"), contentType: "image/png" } }, false);
  expect(await png.sent()).toEqual({ status: 200, headers: { "content-type": "image/png" }, text: "PNGDATA" });
  const events = response();
  send(events.res as unknown as http.ServerResponse, { status: 200, raw: { data: ["data: 1\n\n", "data: 2\n\n"], contentType: "text/event-stream" } }, false);
  expect((await events.sent()).text).toBe("data: 1\n\ndata: 2\n\n");
});

test("nothing is written to a response already destroyed (a dropped connection)", () => {
  const { res } = response(true);
  send(res as unknown as http.ServerResponse, { status: 200, body: {} }, false);
  expect(res.status).toBe(0);
});
