// The console's HTML: escaping, the page frame (navigation, the CSRF token, the live region
// that ./assets/console.js refreshes), and small builders the pages share. No inline script
// and no inline style anywhere: the Content-Security-Policy forbids both.

/** What every console answer carries: scripts, styles, images and calls only from the emulator. */
export const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
};

/** Text made safe for element content and double-quoted attributes. */
export function esc(value: unknown): string {
  return String(value ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** A tagged template whose `${}` parts are escaped unless they are `raw(...)` (already HTML). */
export class Raw {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}
export const raw = (html: string) => new Raw(html);

export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const part = Array.isArray(v) ? v.map((x) => (x instanceof Raw ? x.html : esc(x))).join("") : v instanceof Raw ? v.html : esc(v);
    out += part + strings[i + 1];
  }
  return new Raw(out);
}

export const PAGES = [
  ["pods", "Pods"],
  ["endpoints", "Endpoints"],
  ["volumes", "Network volumes"],
  ["templates", "Templates"],
  ["registries", "Registry credentials"],
  ["money", "Money"],
  ["log", "Request log"],
  ["faults", "Faults"],
] as const;
export type PageName = (typeof PAGES)[number][0];

export interface Frame {
  page: PageName;
  /** The session's CSRF token, for the script's state-changing calls. */
  csrf: string;
  /** The signed-in key's fingerprint and scopes (never the key). */
  who: { id: string; canWrite: boolean };
  /** What refreshes by itself. */
  live: Raw;
  /** What stays while the live part refreshes (forms being filled in). */
  controls?: Raw;
}

export function frame(f: Frame): string {
  const title = PAGES.find(([p]) => p === f.page)![1];
  const nav = PAGES.map(
    ([p, label]) => html`<a href="/console/${p}"${raw(p === f.page ? ' aria-current="page"' : "")}>${label}</a>`,
  );
  const scope = f.who.canWrite ? "read, write" : "read only: the controls will be refused";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${esc(f.csrf)}">
<title>${esc(title)} · Compute Platform emulator</title>
<link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head>
<body>
<header>
<strong>Compute Platform emulator</strong>
<nav>${nav.join("")}</nav>
<span class="who" data-key-id="${esc(f.who.id)}">key ${esc(f.who.id)} (${esc(scope)})</span>
<button type="button" data-sign-out>Sign out</button>
</header>
<h1>${esc(title)}</h1>
<p id="notice" role="status" hidden></p>
${f.controls?.html ?? ""}
<main id="live" data-refresh-ms="2000">
${f.live.html}
</main>
</body>
</html>`;
}

/** A table with a header row; `rows` are already HTML rows. */
export function table(headers: string[], rows: Raw[], empty: string): Raw {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  // In a box of its own that scrolls sideways, so a wide table never widens the page.
  return html`<div class="table-wrap"><table><thead><tr>${headers.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** USD with the precision that shows a small rate. */
export function usd(amount: number, digits = 3): string {
  return `$${amount.toFixed(digits)}`;
}

/** A link to the JSON the API answers for the item. */
export function jsonLink(kind: string, id: string): Raw {
  return html`<a class="id" href="/console/json/${kind}/${encodeURIComponent(id)}">${id}</a>`;
}

/** A button the script turns into one call of the control plane. */
export function callButton(label: string, method: string, url: string, body: unknown, danger = false): Raw {
  return html`<button type="button"${raw(danger ? ' class="danger"' : "")} data-call="${method} ${url}" data-body="${JSON.stringify(body)}">${label}</button>`;
}

/**
 * A button in an item's row that sends one outside event (POST /emulator/events); the script
 * takes the id from the row's data-pod-id or data-endpoint-id, so 300 rows stay small.
 */
export function eventButton(label: string, event: "stopPod" | "terminatePod" | "deleteEndpoint", danger = false): Raw {
  return html`<button type="button"${raw(danger ? ' class="danger"' : "")} data-event="${event}">${label}</button>`;
}

export function signInPage(message?: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · Compute Platform emulator</title>
<link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/assets/console.css">
</head>
<body class="sign-in">
<h1>Compute Platform emulator</h1>
<form method="post" action="/console/sign-in" autocomplete="off">
<label for="key">API key</label>
<input id="key" name="key" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button>
${message ? `<p class="error" role="alert">${esc(message)}</p>` : ""}
<p class="hint">The key the emulator printed at start (or one given with <code>--key</code>). It is sent once;
the console keeps a session cookie instead.</p>
</form>
</body>
</html>`;
}
