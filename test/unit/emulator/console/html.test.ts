// The console's HTML (docs/emulator.md, "The console"): whatever an item holds is escaped, the
// frame carries the CSRF token and the key's id (never the key), and every answer's headers
// allow nothing but the emulator itself.
import {
  callButton,
  esc,
  eventButton,
  frame,
  html,
  jsonLink,
  PAGES,
  raw,
  SECURITY_HEADERS,
  signInPage,
  table,
  usd,
} from "../../../../src/emulator/console/html";

const HOSTILE = `<script>alert("x")</script> & 'y'`;

test("esc makes text safe for element content and quoted attributes; nothing is the empty string", () => {
  expect(esc(HOSTILE)).toBe("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;");
  expect(esc(null)).toBe("");
  expect(esc(undefined)).toBe("");
  expect(esc(0)).toBe("0");
});

test("html escapes every part but raw(...) ones, and each item of an array", () => {
  const out = html`<p title="${HOSTILE}">${[raw("<b>kept</b>"), "<i>"]}${raw("<br>")}</p>`;
  expect(out.html).toBe(`<p title="${esc(HOSTILE)}"><b>kept</b>&lt;i&gt;<br></p>`);
  expect(String(out)).toBe(out.html);
});

test("the CSP allows only the emulator: no inline script or style, no framing; answers are not cached", () => {
  const csp = SECURITY_HEADERS["content-security-policy"];
  expect(csp).toBe(
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  expect(SECURITY_HEADERS).toMatchObject({ "x-content-type-options": "nosniff", "x-frame-options": "DENY", "cache-control": "no-store" });
});

test("a frame names its page, marks it in the navigation, carries the CSRF token and the key's id, escaped", () => {
  const page = frame({ page: "log", csrf: 'tok"en', who: { id: "key_0123abcd", canWrite: false }, live: raw("<p>live</p>"), controls: raw("<form></form>") });
  expect(page).toContain('<meta name="csrf-token" content="tok&quot;en">');
  expect(page).toContain("<title>Request log · Compute Platform emulator</title>");
  expect(page).toContain('<a href="/console/log" aria-current="page">Request log</a>');
  expect(page.match(/aria-current/g)).toHaveLength(1);
  expect(page.match(/<a href="\/console\//g)).toHaveLength(PAGES.length);
  expect(page).toContain("key key_0123abcd (read only: the controls will be refused)");
  expect(page).toMatch(/<form><\/form>\n<main id="live" data-refresh-ms="2000">\n<p>live<\/p>/);
  expect(page).not.toMatch(/<script>|<style|style="/);
  expect(frame({ page: "pods", csrf: "t", who: { id: "k", canWrite: true }, live: raw("") })).toContain("(read, write)");
});

test("a table with no rows is its empty text; with rows, a header row in a box that scrolls", () => {
  expect(table(["A"], [], "No pods.").html).toBe('<p class="empty">No pods.</p>');
  expect(table(["A", "<B>"], [raw("<tr><td>1</td></tr>")], "none").html).toBe(
    '<div class="table-wrap"><table><thead><tr><th>A</th><th>&lt;B&gt;</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table></div>',
  );
});

test("usd shows three places by default", () => {
  expect(usd(0.6899999)).toBe("$0.690");
  expect(usd(1 / 3, 6)).toBe("$0.333333");
});

test("an item's JSON link encodes its id in the path and escapes it in the text", () => {
  expect(jsonLink("pods", "a/b<c").html).toBe('<a class="id" href="/console/json/pods/a%2Fb%3Cc">a/b&lt;c</a>');
});

test("a call button carries its method, URL and JSON body escaped; danger marks it", () => {
  expect(callButton("Remove", "PATCH", "/console/emulator/faults", { errorImages: ['"x'] }).html).toBe(
    '<button type="button" data-call="PATCH /console/emulator/faults" data-body="{&quot;errorImages&quot;:[&quot;\\&quot;x&quot;]}">Remove</button>',
  );
  expect(callButton("Clear", "DELETE", "/x", null, true).html).toContain('class="danger" data-call="DELETE /x" data-body="null"');
  expect(eventButton("Terminate", "terminatePod", true).html).toBe('<button type="button" class="danger" data-event="terminatePod">Terminate</button>');
});

test("the sign-in page posts the key once from a password field; its message is escaped", () => {
  const page = signInPage(HOSTILE);
  expect(page).toContain('<form method="post" action="/console/sign-in" autocomplete="off">');
  expect(page).toContain('type="password"');
  expect(page).toContain(`<p class="error" role="alert">${esc(HOSTILE)}</p>`);
  expect(signInPage()).not.toContain('class="error"');
});
