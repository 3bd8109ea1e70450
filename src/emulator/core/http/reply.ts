// Writing replies: problem+json for REST failures, the GraphQL `errors[]` envelope
// for failures on /graphql, and the bytes on the socket.

import type * as http from "node:http";
import { Readable } from "node:stream";
import type { HttpError } from "../problem";
import type { Reply } from "./types";

const GRAPHQL_CODES: Record<number, string> = {
  400: "BAD_REQUEST",
  401: "UNAUTHENTICATED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "RATE_LIMITED",
};

export function problemReply(err: HttpError): Reply {
  const body: Record<string, unknown> = { title: err.title, status: err.status, detail: err.detail };
  if (err.errors) body.errors = err.errors;
  return { status: err.status, body, headers: { "content-type": "application/problem+json", ...err.headers } };
}

export function graphqlError(err: HttpError): Reply {
  const code = GRAPHQL_CODES[err.status] ?? "INTERNAL_SERVER_ERROR";
  return { status: err.status, body: { errors: [{ message: err.detail, extensions: { code } }] }, headers: { ...err.headers } };
}

/** A header whose value is "" is left out (a route can cancel a default that way). */
export function send(res: http.ServerResponse, reply: Reply, closing: boolean): void {
  if (res.destroyed) return;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(reply.headers ?? {})) if (v !== "") headers[k] = v;
  if (closing) headers.connection = "close";
  if (reply.raw) {
    res.writeHead(reply.status, { ...headers, "content-type": reply.raw.contentType });
    if (Buffer.isBuffer(reply.raw.data)) res.end(reply.raw.data);
    // Each piece made only when the socket has taken the last ones (backpressure).
    else Readable.from(reply.raw.data, { objectMode: false }).pipe(res);
    return;
  }
  if (reply.body === undefined || reply.status === 204) {
    delete headers["content-type"];
    res.writeHead(reply.status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    "content-type": headers["content-type"] ?? "application/json",
    ...headers,
    "content-length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}
