// The console at /console on the API's port: sign-in, the pages, each item's JSON and the two
// static assets. Pages are rendered here, on the server, from what the emulator holds; the
// script (./assets/console.js) only refreshes the live part and sends the controls to the
// control plane (/emulator/..., ../control/routes.ts) with the session's CSRF token.
//
//   GET  /console                      -> /console/pods
//   GET  /console/sign-in, POST (form: key)   the key, once, for a session cookie
//   POST /console/sign-out             (CSRF token)
//   GET  /console/{page}               pods, endpoints, volumes, templates, registries, money, log, faults
//   GET  /console/json/{kind}/{id}     the item as the API answers it
//   GET  /console/assets/console.js, console.css, favicon.svg (also as /favicon.ico)

import { readFileSync } from "node:fs";
import type * as http from "node:http";
import { join } from "node:path";
import type { ApiKey } from "../core/http/types";
import { fingerprint, type RequestLog, type RequestLogEntry } from "../core/request-log";
import { esc, frame, html, type PageName, PAGES, type Raw, SECURITY_HEADERS, signInPage } from "./html";
import { faultsControls, faultsLive, logControls, logPage, STATUS_FILTERS, type StatusFilter, WHO_FILTERS, type WhoFilter } from "./log-and-faults";
import { SignInAttempts } from "./attempts";
import { moneyPage } from "./money";
import { endpointsPage, itemJson, podsPage, registriesPage, templatesPage, volumesPage } from "./resource-pages";
import { checkStateChange, crossOrigin, type Session, type Sessions } from "./sessions";
import type { AccountSource, ConsoleSource } from "./source";

export { Sessions } from "./sessions";
export type { ConsoleSource } from "./source";

/** A sign-in form holds one key; anything longer is not one. */
const MAX_FORM_BYTES = 8 * 1024;
/** Sent by the script when it refreshes the live part: the answer is that part only. */
const REFRESH_HEADER = "x-console-refresh";

const ASSETS: Record<string, string> = {
  "console.js": "text/javascript; charset=utf-8",
  "console.css": "text/css; charset=utf-8",
  "favicon.svg": "image/svg+xml",
};

export interface ConsoleDeps {
  source: ConsoleSource;
  /** The account a key belongs to: the one its session's outside events act on. */
  accountOf(key: ApiKey): string;
  sessions: Sessions;
  keys: ReadonlyMap<string, ApiKey>;
  log: RequestLog;
  clock: { now(): number };
}

interface Answer {
  status: number;
  type?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

const htmlAnswer = (status: number, body: string, headers: Record<string, string> = {}): Answer => ({
  status,
  type: "text/html; charset=utf-8",
  body,
  headers,
});
const jsonAnswer = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => ({
  status,
  type: "application/json",
  body: JSON.stringify(body, null, 2),
  headers,
});
const redirect = (to: string, headers: Record<string, string> = {}): Answer => ({ status: 303, headers: { location: to, ...headers } });

/**
 * The pages call the control plane under the console's path, where their session cookie is sent
 * (its Path is /console): `/console/emulator/faults` is `/emulator/faults`.
 */
export const CONTROL_VIA_CONSOLE = "/console/emulator/";

/** The control plane's path a request under CONTROL_VIA_CONSOLE stands for, with its query. */
export function controlPath(url: string): string | undefined {
  // Judged on the normalised path, so `/console/emulator/../../v2/pods` stands for nothing.
  const normal = new URL(`http://console.invalid${url.startsWith("/") ? url : "/"}`);
  return normal.pathname.startsWith(CONTROL_VIA_CONSOLE) ? normal.pathname.slice("/console".length) + normal.search : undefined;
}

export function isConsolePath(pathname: string): boolean {
  // A browser asks for /favicon.ico on its own: the console's icon, served here like its
  // other assets, so it is neither a 404 nor a line in the request log.
  return pathname === "/console" || pathname.startsWith("/console/") || pathname === FAVICON;
}

const FAVICON = "/favicon.ico";

export class Console {
  private readonly assets = new Map<string, Buffer>();
  private readonly attempts: SignInAttempts;

  constructor(private readonly deps: ConsoleDeps) {
    this.attempts = new SignInAttempts(deps.clock);
    for (const name of Object.keys(ASSETS)) this.assets.set(name, readFileSync(join(__dirname, "assets", name)));
  }

  async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(`http://console.invalid${req.url ?? "/"}`);
    const body = await readForm(req);
    const a = body === "too-large" ? htmlAnswer(413, signInPage("That request is too large.")) : this.route(req, url, body);
    const headers: Record<string, string> = { ...SECURITY_HEADERS, ...a.headers };
    if (a.type) headers["content-type"] = a.type;
    if (a.body !== undefined) headers["content-length"] = String(Buffer.byteLength(a.body));
    res.writeHead(a.status, headers);
    res.end(req.method === "HEAD" ? undefined : a.body);
  }

  private route(req: http.IncomingMessage, url: URL, form: string): Answer {
    const method = req.method ?? "GET";
    const path = url.pathname.replace(/\/+$/, "") || "/console";
    const parts = path.split("/").slice(2);
    const get = method === "GET" || method === "HEAD";
    const asset = path === FAVICON ? "favicon.svg" : parts[0] === "assets" && parts.length === 2 ? parts[1] : undefined;
    if (asset !== undefined && ASSETS[asset]) {
      return get ? { status: 200, type: ASSETS[asset], body: this.assets.get(asset)!, headers: { "cache-control": "no-cache" } } : notAllowed("GET");
    }
    if (parts.length === 0) return get ? redirect("/console/pods") : notAllowed("GET");
    if (path === "/console/sign-in") {
      if (get) return htmlAnswer(200, signInPage());
      return method === "POST" ? this.signIn(req, form) : notAllowed("GET, POST");
    }
    const session = this.deps.sessions.fromRequest(req);
    if (path === "/console/sign-out") {
      if (method !== "POST") return notAllowed("POST");
      return this.signOut(req, session);
    }
    if (!session) {
      return req.headers[REFRESH_HEADER] ? jsonAnswer(401, { location: "/console/sign-in" }) : redirect("/console/sign-in");
    }
    if (!get) return notAllowed("GET");
    if (parts[0] === "json" && parts.length === 3) {
      const id = decoded(parts[2]);
      if (id === undefined) return jsonAnswer(400, { detail: `the item id '${parts[2]}' is not a valid percent-encoding` });
      const item = this.deps.source
        .accounts()
        .map((a) => itemJson(a, parts[1], id))
        .find((x) => x !== undefined);
      return item === undefined ? jsonAnswer(404, { detail: `no ${parts[1]} item '${parts[2]}'` }) : jsonAnswer(200, item);
    }
    const page = PAGES.find(([p]) => p === parts[0])?.[0];
    if (!page || parts.length !== 1) return htmlAnswer(404, notFound(path));
    const { live, controls } = this.page(page, url.searchParams, this.deps.accountOf(session.key));
    if (req.headers[REFRESH_HEADER]) return htmlAnswer(200, live.html);
    const who = { id: fingerprint(session.key.key), canWrite: session.key.scopes.includes("write") };
    return htmlAnswer(200, frame({ page, csrf: session.csrf, who, live, controls }));
  }

  /**
   * A resource page shows every account's objects: one account as it always has, several each
   * under its name, the signed-in key's first. Outside events go through the control plane on
   * the session's key, which acts on its own account only, so other accounts' rows offer none.
   */
  private byAccount(mine: string, part: (a: AccountSource, own: boolean) => Raw): Raw {
    const all = this.deps.source.accounts();
    if (all.length === 1) return part(all[0], true);
    const ordered = [...all.filter((a) => a.name === mine), ...all.filter((a) => a.name !== mine)];
    return html`${ordered.map(
      (a) => html`<section class="account" data-account="${a.name}"><h2>Account <code>${a.name}</code>${a.name === mine ? " (this key's)" : ""}</h2>
${part(a, a.name === mine)}</section>`,
    )}`;
  }

  private page(page: PageName, q: URLSearchParams, mine: string): { live: Raw; controls?: Raw } {
    const src = this.deps.source;
    switch (page) {
      case "pods":
        return { live: this.byAccount(mine, (a, own) => podsPage(a, q.get("terminated") === "1", own)) };
      case "endpoints":
        return { live: this.byAccount(mine, (a, own) => endpointsPage(a, own)) };
      case "volumes":
        return { live: this.byAccount(mine, volumesPage) };
      case "templates":
        return { live: this.byAccount(mine, templatesPage) };
      case "registries":
        return { live: this.byAccount(mine, registriesPage) };
      case "money":
        return { live: this.byAccount(mine, moneyPage) };
      case "log": {
        const wanted = q.get("status") ?? "all";
        const filter = (STATUS_FILTERS as readonly string[]).includes(wanted) ? (wanted as StatusFilter) : "all";
        const whoWanted = q.get("who") ?? "keyed";
        const who = (WHO_FILTERS as readonly string[]).includes(whoWanted) ? (whoWanted as WhoFilter) : "keyed";
        return { live: logPage(src, filter, who), controls: logControls(filter, who) };
      }
      case "faults":
        return { live: faultsLive(src), controls: faultsControls(src) };
    }
  }

  private signIn(req: http.IncomingMessage, form: string): Answer {
    const cross = crossOrigin(req);
    if (cross) return htmlAnswer(403, signInPage(cross.detail));
    const client = req.socket.remoteAddress ?? "unknown";
    const wait = this.attempts.waitMs(client);
    if (wait > 0) {
      // Before the key is looked at: while it waits, a client learns nothing of any key.
      const seconds = Math.ceil(wait / 1000);
      this.record("POST", "/console/sign-in", 429, null, "consoleSignIn");
      return htmlAnswer(429, signInPage(`Too many wrong keys from this address: try again in ${seconds} s.`), { "retry-after": String(seconds) });
    }
    const type = (req.headers["content-type"] ?? "").split(";")[0].trim();
    const key = type === "application/x-www-form-urlencoded" ? new URLSearchParams(form).get("key")?.trim() : undefined;
    const found = key ? this.deps.keys.get(key) : undefined;
    if (!found) {
      this.attempts.failed(client);
      this.record("POST", "/console/sign-in", 401, null, "consoleSignIn");
      // Never echo what was typed: it may be a real key of another account.
      return htmlAnswer(401, signInPage("That is not a key this emulator accepts."));
    }
    this.attempts.succeeded(client);
    const session = this.deps.sessions.open(found);
    this.record("POST", "/console/sign-in", 303, fingerprint(found.key), "consoleSignIn");
    return redirect("/console/pods", { "set-cookie": this.deps.sessions.cookie(session) });
  }

  private signOut(req: http.IncomingMessage, session: Session | undefined): Answer {
    if (!session) return jsonAnswer(401, { detail: "not signed in", location: "/console/sign-in" });
    const refused = checkStateChange(req, session);
    if (refused) {
      this.record("POST", "/console/sign-out", 403, fingerprint(session.key.key), "consoleSignOut");
      return jsonAnswer(403, { title: refused.title, status: 403, detail: refused.detail });
    }
    this.deps.sessions.close(session);
    this.record("POST", "/console/sign-out", 200, fingerprint(session.key.key), "consoleSignOut");
    return jsonAnswer(200, { location: "/console/sign-in" }, { "set-cookie": this.deps.sessions.cleared() });
  }

  private record(method: string, path: string, status: number, key: string | null, op: string): void {
    const entry: RequestLogEntry = {
      at: new Date(this.deps.clock.now()).toISOString(),
      method,
      path,
      status,
      key,
      op,
      dropped: false,
      via: "console",
    };
    this.deps.log.record(entry, [op]);
  }
}

/** A path segment percent-decoded, or undefined for a malformed escape (`%E0%A4%A`). */
function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function notAllowed(allow: string): Answer {
  return { status: 405, type: "text/plain; charset=utf-8", body: `method not allowed; allowed: ${allow}\n`, headers: { allow } };
}

function notFound(path: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found · Compute Platform emulator</title>
<link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/assets/console.css"></head>
<body class="sign-in"><h1>Not found</h1><p>No console page at <code>${esc(path)}</code>. <a href="/console/pods">Pods</a></p></body></html>`;
}

async function readForm(req: http.IncomingMessage): Promise<string | "too-large"> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) {
      req.resume();
      return "too-large";
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
