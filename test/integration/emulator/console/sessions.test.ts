// The console's session stays its own (issue 35, cases 3 to 8), over real HTTP: a bad escape is a
// 400 with the console's headers; the cookie belongs to one emulator; only the emulator's own host
// names are served; sign-in slows after failures; keyless requests cannot push authenticated ones
// out of the request log; one key's sign-ins cannot end another key's sessions.
import * as http from "node:http";
import type { Emulator } from "../../../../src/emulator";
import { FULL, READ_ONLY, start } from "../../../helpers/emulator-rest";

let emu: Emulator;
const others: Emulator[] = [];
beforeEach(async () => {
  emu = await start();
});
afterEach(async () => {
  await emu.close();
  for (const e of others.splice(0)) await e.close();
});

interface Seen {
  status: number;
  headers: Headers;
  text: string;
}

async function browse(path: string, init: RequestInit & { cookie?: string; on?: Emulator } = {}): Promise<Seen> {
  const headers = new Headers(init.headers);
  if (init.cookie) headers.set("cookie", init.cookie);
  const res = await fetch(`${(init.on ?? emu).url}${path}`, { ...init, headers, redirect: "manual" });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function postKey(key: string, on: Emulator = emu, headers: Record<string, string> = {}): Promise<Seen> {
  return browse("/console/sign-in", {
    on,
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({ key }).toString(),
  });
}

/** Signs in and answers the cookie pair (`name=value`) the browser would send back. */
async function signIn(key: string, on: Emulator = emu): Promise<string> {
  const res = await postKey(key, on);
  expect(res.status).toBe(303);
  return res.headers.get("set-cookie")!.split(";")[0];
}

describe("case 3: a malformed escape in a console JSON link", () => {
  test("is a 400 with the console's headers, not a 500", async () => {
    const cookie = await signIn(FULL);
    const res = await browse("/console/json/pods/%E0%A4%A", { cookie });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-security-policy")).toMatch(/^default-src 'none'/);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(res.text).detail).toBe("the item id '%E0%A4%A' is not a valid percent-encoding");
    expect((await browse("/console/json/pods/%", { cookie })).status).toBe(400);
  });
});

/** A browser's cookie jar for one host name: every port shares it, a cookie is kept by its name. */
class Jar {
  readonly cookies = new Map<string, string>();
  take(res: Seen): void {
    const pair = res.headers.get("set-cookie")?.split(";")[0];
    if (!pair) return;
    const eq = pair.indexOf("=");
    this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

describe("case 4: the session cookie belongs to one emulator", () => {
  test("signed in to two emulators on one host at once, each keeps its own session", async () => {
    const second = await start();
    others.push(second);
    const jar = new Jar();
    const first = await postKey(FULL);
    jar.take(first);
    jar.take(await postKey(READ_ONLY, second));
    const a = await browse("/console/pods", { cookie: jar.header() });
    const b = await browse("/console/pods", { cookie: jar.header(), on: second });
    expect([a.status, b.status]).toEqual([200, 200]);
    const port = (e: Emulator) => new URL(e.url).port;
    expect(first.headers.get("set-cookie")).toMatch(new RegExp(`^cp_console_${port(emu)}=[\\w-]{43}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=\\d+$`));
    expect([...jar.cookies.keys()].sort()).toEqual([`cp_console_${port(emu)}`, `cp_console_${port(second)}`].sort());
    expect(b.text).toContain("read only");
    expect(a.text).not.toContain("read only");
    // One emulator's cookie opens nothing on the other.
    const onlyFirst = `cp_console_${port(emu)}=${jar.cookies.get(`cp_console_${port(emu)}`)}`;
    expect((await browse("/console/pods", { cookie: onlyFirst, on: second })).status).toBe(303);
  });

  test("the pages call the control plane under /console, where the cookie is sent", async () => {
    const cookie = await signIn(FULL);
    const page = await browse("/console/faults", { cookie });
    const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(page.text)![1];
    expect(page.text).toContain("data-call=\"DELETE /console/emulator/faults\"");
    const set = await browse("/console/emulator/faults", {
      method: "PATCH",
      cookie,
      headers: { "content-type": "application/json", "x-csrf-token": csrf, origin: emu.url },
      body: '{"rate429":0.25}',
    });
    expect(set.status).toBe(200);
    expect(emu.requestLog().at(-1)).toMatchObject({ method: "PATCH", path: "/emulator/faults", op: "updateFaults", via: "console", status: 200 });
    expect((await browse("/console/emulator/../../v2/pods", { cookie })).status).not.toBe(200);
  });
});

describe("case 8: sessions are capped per key", () => {
  test("a read-only key signing in 1,001 times does not sign the write key out; it ends only its own oldest", async () => {
    const writer = await signIn(FULL);
    const firstReader = await signIn(READ_ONLY);
    for (let i = 0; i < 20; i++) await Promise.all(Array.from({ length: 50 }, () => postKey(READ_ONLY)));
    expect((await browse("/console/pods", { cookie: writer })).status).toBe(200);
    expect((await browse("/console/pods", { cookie: firstReader })).headers.get("location")).toBe("/console/sign-in");
  });
});

/** A request with a `Host` of our choosing (fetch keeps the URL's). */
function asHost(host: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Seen> {
  const { hostname, port } = new URL(emu.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path, headers: { host, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") h.set(k, v);
        resolve({ status: res.statusCode ?? 0, headers: h, text: Buffer.concat(chunks).toString("utf8") });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("case 5: only the emulator's own host names are served", () => {
  test("another name on the emulator's port is a 421 before sign-in, pages, the control plane and the API", async () => {
    const port = new URL(emu.url).port;
    const evil = `rebound.example:${port}`;
    const form = { "content-type": "application/x-www-form-urlencoded", origin: `http://${evil}` };
    const signInThere = await asHost(evil, "POST", "/console/sign-in", form, new URLSearchParams({ key: FULL }).toString());
    expect(signInThere.status).toBe(421);
    expect(signInThere.headers.get("set-cookie")).toBeNull();
    expect(JSON.parse(signInThere.text).detail).toBe(`this emulator serves only its own host names (localhost, 127.0.0.1, [::1]), not 'rebound.example'`);
    const cookie = await signIn(FULL);
    expect((await asHost(evil, "GET", "/console/pods", { cookie })).status).toBe(421);
    const patch = { "content-type": "application/json", authorization: `Bearer ${FULL}`, origin: `http://${evil}` };
    expect((await asHost(evil, "PATCH", "/emulator/faults", patch, '{"rate5xx":1}')).status).toBe(421);
    expect((await asHost(evil, "GET", "/v2/pods", { authorization: `Bearer ${FULL}` })).status).toBe(421);
    expect((await asHost("127.0.0.1.nip.example", "GET", "/v2/pods", { authorization: `Bearer ${FULL}` })).status).toBe(421);
    expect(emu.requestLog().filter((e) => e.op === "updateFaults")).toEqual([]);
    // The loopback names are the emulator's own.
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `app.localhost:${port}`, `127.1.2.3:${port}`, `[::1]:${port}`]) {
      expect([host, (await asHost(host, "GET", "/v2/pods", { authorization: `Bearer ${FULL}` })).status]).toEqual([host, 200]);
    }
    const here = await asHost(`localhost:${port}`, "POST", "/console/sign-in", { ...form, origin: `http://localhost:${port}` }, new URLSearchParams({ key: FULL }).toString());
    expect(here.status).toBe(303);
  });

  test("a name given with allowedHosts (--allowed-host) is served too", async () => {
    await emu.close();
    emu = await start({ allowedHosts: ["Emulator.Test"] });
    const port = new URL(emu.url).port;
    const bearer = { authorization: `Bearer ${FULL}` };
    expect((await asHost(`emulator.test:${port}`, "GET", "/v2/pods", bearer)).status).toBe(200);
    expect((await asHost(`other.test:${port}`, "GET", "/v2/pods", bearer)).status).toBe(421);
  });
});

describe("case 6: sign-in slows after repeated failures from one client", () => {
  test("five wrong keys are free; then each try waits 1 s, 2 s, ... of the emulator's clock, the key unread; a right key resets", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await postKey(`cp_guess_${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    // Even the right key waits: nothing is learnt while waiting.
    const waiting = await postKey(FULL);
    expect([waiting.status, waiting.headers.get("retry-after")]).toEqual([429, "1"]);
    expect(waiting.headers.get("set-cookie")).toBeNull();
    expect(waiting.headers.get("content-security-policy")).toMatch(/^default-src 'none'/);
    emu.advanceClock(1000);
    expect((await postKey("cp_guess_again")).status).toBe(401);
    expect((await postKey(FULL)).headers.get("retry-after")).toBe("2");
    emu.advanceClock(2000);
    expect((await postKey(FULL)).status).toBe(303);
    expect((await postKey("cp_typo")).status).toBe(401);
    const signIns = emu.requestLog().filter((e) => e.op === "consoleSignIn").map((e) => e.status);
    expect(signIns.filter((s) => s === 429)).toHaveLength(5);
  });
});

describe("case 7: the request log keeps every authenticated entry whatever arrives without a key", () => {
  test("150 keyless requests (404s, missing and unknown keys) leave a 100-entry log's createNetworkVolume in place", async () => {
    const small = await start({ requestLogSize: 100 });
    others.push(small);
    const created = await fetch(`${small.url}/v2/network-volumes`, {
      method: "POST",
      headers: { authorization: `Bearer ${FULL}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "kept", size: 10, dataCenter: "US-TX-3" }),
    });
    expect(created.status).toBe(201);
    const noise = (i: number) =>
      i % 3 === 0
        ? fetch(`${small.url}/nothing/${i}`)
        : fetch(`${small.url}/v2/pods`, i % 3 === 1 ? {} : { headers: { authorization: `Bearer cp_unknown_${i}` } });
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => noise(round * 50 + i)));
      expect(new Set(answers.map((r) => r.status))).toEqual(new Set([404, 401]));
    }
    const log = small.requestLog();
    expect(log.filter((e) => e.op === "createNetworkVolume").map((e) => e.status)).toEqual([201]);
    expect(log.filter((e) => e.key === null)).toHaveLength(100);
    expect(log[0].op).toBe("createNetworkVolume");
  });
});
