// Console sessions: an API key posted once to /console/sign-in is exchanged for a random
// session id in an HttpOnly, SameSite=Strict cookie; the key itself never leaves the server
// again (not in a page, a URL, a header or the log). Every state-changing request of a session
// also carries the session's CSRF token in `x-csrf-token` and, when the browser sends one, an
// `Origin` of the emulator itself.
//
// Browsers keep cookies per host name, not per port: every emulator (and every other web server)
// on 127.0.0.1 is sent the cookies of the others. So the cookie's name carries the emulator's port
// (`cp_console_8787`: signing in to a second emulator leaves the first one's session alone), it
// has no Domain (this host name only) and its Path is /console, the only place the console's pages
// and their controls (/console/emulator/..., the control plane) are sent from: another server on
// the host sees it only under its own /console.

import type * as http from "node:http";
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { ApiKey } from "../core/http/types";
import { type HttpError, problem } from "../core/problem";

export const COOKIE_PREFIX = "cp_console_";
/** Where the cookie is sent: the pages, and the control plane as the pages call it. */
export const COOKIE_PATH = "/console";
export const CSRF_HEADER = "x-csrf-token";
/** Real hours a session lasts (it is not renewed). */
const TTL_MS = 12 * 3_600_000;
/**
 * Sessions one key keeps at once; its oldest goes first. Per key, so signing in again and again
 * with one key (a read-only one, say) never ends another key's session.
 */
export const MAX_SESSIONS_PER_KEY = 20;

export interface Session {
  readonly id: string;
  readonly key: ApiKey;
  /** Sent back in `x-csrf-token` by every state-changing request of the session. */
  readonly csrf: string;
  readonly expiresAt: number;
}

const token = () => randomBytes(32).toString("base64url");

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class Sessions {
  private readonly byId = new Map<string, Session>();
  /** Each key's sessions, oldest first. */
  private readonly byKey = new Map<string, Session[]>();
  /** The cookie's name: the emulator's port is known once it listens. */
  private name = `${COOKIE_PREFIX}0`;

  /** Names the cookie after the port the emulator listens on. */
  bind(port: number): void {
    this.name = `${COOKIE_PREFIX}${port}`;
  }

  get cookieName(): string {
    return this.name;
  }

  open(key: ApiKey): Session {
    const session: Session = { id: token(), key, csrf: token(), expiresAt: Date.now() + TTL_MS };
    this.byId.set(session.id, session);
    const mine = this.byKey.get(key.key) ?? [];
    mine.push(session);
    this.byKey.set(key.key, mine);
    while (mine.length > MAX_SESSIONS_PER_KEY) this.byId.delete(mine.shift()!.id);
    return session;
  }

  close(session: Session): void {
    this.byId.delete(session.id);
    const mine = this.byKey.get(session.key.key)?.filter((s) => s !== session) ?? [];
    if (mine.length > 0) this.byKey.set(session.key.key, mine);
    else this.byKey.delete(session.key.key);
  }

  /** `Set-Cookie` for a new session: never readable by scripts, never sent by another site. */
  cookie(session: Session): string {
    return `${this.name}=${session.id}; Path=${COOKIE_PATH}; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(TTL_MS / 1000)}`;
  }

  cleared(): string {
    return `${this.name}=; Path=${COOKIE_PATH}; HttpOnly; SameSite=Strict; Max-Age=0`;
  }

  /** The live session the request's cookie names, if any. */
  fromRequest(req: http.IncomingMessage): Session | undefined {
    const id = cookieValue(req.headers.cookie, this.name);
    const session = id === undefined ? undefined : this.byId.get(id);
    if (session && session.expiresAt <= Date.now()) {
      this.close(session);
      return undefined;
    }
    return session;
  }

  /** The key a request's session signed in with and, for a change, its refusal by `checkStateChange`. */
  caller(req: http.IncomingMessage, mutates: boolean): { key: ApiKey; refused?: HttpError } | undefined {
    const session = this.fromRequest(req);
    return session && { key: session.key, refused: mutates ? checkStateChange(req, session) : undefined };
  }
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A request from another origin: refused whatever it carries. */
export function crossOrigin(req: http.IncomingMessage): HttpError | undefined {
  const origin = req.headers.origin;
  if (origin === undefined || origin === `http://${req.headers.host}`) return undefined;
  return problem(403, "cross-origin request refused by the console");
}

/** 403 unless a state-changing request of `session` comes from the emulator's own pages. */
export function checkStateChange(req: http.IncomingMessage, session: Session): HttpError | undefined {
  const cross = crossOrigin(req);
  if (cross) return cross;
  const sent = req.headers[CSRF_HEADER];
  if (typeof sent !== "string" || !sameText(sent, session.csrf)) {
    return problem(403, `missing or wrong CSRF token: a console request that changes something sends the page's token in ${CSRF_HEADER}`);
  }
  return undefined;
}
