// The console over real HTTP, without a browser (the browser test is
// test/browser/console.browser.ts, run by `npm run test:console`): sign-in and its session
// cookie, the CSRF token, the read-only key's 403, the security headers, and that no answer or
// log entry holds a key's bytes. The control plane it calls is test/integration/emulator/control/routes.test.ts.
import type { Emulator } from "../../../../src/emulator";
import { client, FULL, READ_ONLY, RTX4090, start } from "../../../helpers/emulator-rest";

let emu: Emulator;
const api = client(() => emu);

beforeEach(async () => {
  emu = await start();
});
afterEach(async () => {
  await emu.close();
});

interface Seen {
  status: number;
  headers: Headers;
  text: string;
}
/** Every console answer of a test, to search for key bytes at the end. */
let seen: Seen[] = [];
beforeEach(() => {
  seen = [];
});

async function browse(path: string, init: RequestInit & { cookie?: string } = {}): Promise<Seen> {
  const headers = new Headers(init.headers);
  if (init.cookie) headers.set("cookie", init.cookie);
  const res = await fetch(`${emu.url}${path}`, { ...init, headers, redirect: "manual" });
  const s = { status: res.status, headers: res.headers, text: await res.text() };
  seen.push(s);
  return s;
}

async function signIn(key: string): Promise<{ cookie: string; csrf: string }> {
  const res = await browse("/console/sign-in", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ key }).toString(),
  });
  expect(res.status).toBe(303);
  const cookie = res.headers.get("set-cookie")!.split(";")[0];
  const page = await browse("/console/pods", { cookie });
  const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(page.text)![1];
  return { cookie, csrf };
}

function noKeyBytes(): void {
  for (const s of seen) {
    const all = [s.text, ...[...s.headers.entries()].map(([k, v]) => `${k}: ${v}`)].join("\n");
    for (const key of [FULL, READ_ONLY]) expect(all).not.toContain(key);
  }
  expect(JSON.stringify(emu.requestLog())).not.toContain(FULL);
  expect(JSON.stringify(emu.requestLog())).not.toContain(READ_ONLY);
}

describe("the console (/console)", () => {
  test("pages need a session; the key is posted once and exchanged for an HttpOnly SameSite=Strict cookie", async () => {
    expect((await browse("/console")).headers.get("location")).toBe("/console/pods");
    expect((await browse("/console/pods")).headers.get("location")).toBe("/console/sign-in");
    const wrong = await browse("/console/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "key=cp_not_a_key_of_this_emulator",
    });
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain("cp_not_a_key_of_this_emulator");

    const res = await browse("/console/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ key: FULL }).toString(),
    });
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^cp_console_\d+=[\w-]{43}; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    const cookie = setCookie.split(";")[0];
    const pods = await browse("/console/pods", { cookie });
    expect(pods.status).toBe(200);
    const signIns = emu.requestLog().filter((e) => e.op === "consoleSignIn");
    expect(signIns.map((e) => [e.status, e.via, e.key === null])).toEqual([
      [401, "console", true],
      [303, "console", false],
    ]);
    noKeyBytes();
  });

  test("every page answers with a CSP that allows only the emulator, and holds no inline script or style", async () => {
    await api.createPod({ gpu: { id: RTX4090 } });
    const { cookie } = await signIn(FULL);
    for (const page of ["pods", "endpoints", "volumes", "templates", "registries", "money", "log", "faults"]) {
      const res = await browse(`/console/${page}`, { cookie });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-security-policy")).toMatch(/default-src 'none'; script-src 'self'; style-src 'self';/);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.text).not.toMatch(/<script(?![^>]*\bsrc="\/console\/assets\/console\.js")/);
      expect(res.text).not.toMatch(/\sstyle=|<style|\son[a-z]+=/i);
      expect(res.text).not.toMatch(/https?:\/\//);
    }
    const money = await browse("/console/money", { cookie });
    expect(money.text).toMatch(/<svg class="chart"[^>]*data-points="61"/);
    const js = await browse("/console/assets/console.js");
    expect(js.headers.get("content-type")).toMatch(/^text\/javascript/);
    noKeyBytes();
  });

  test("a control from the console needs the CSRF token and a same-origin request, and is logged as the console's", async () => {
    const { cookie, csrf } = await signIn(FULL);
    const patch = (headers: Record<string, string>) =>
      browse("/emulator/faults", { method: "PATCH", cookie, headers: { "content-type": "application/json", ...headers }, body: '{"rate429":0.5}' });
    expect((await patch({})).status).toBe(403);
    expect((await patch({ "x-csrf-token": "x".repeat(43) })).status).toBe(403);
    expect((await patch({ "x-csrf-token": csrf, origin: "http://evil.example" })).status).toBe(403);
    expect((await api.get("/emulator/faults")).body.rate429).toBe(0);
    const ok = await patch({ "x-csrf-token": csrf, origin: emu.url });
    expect(ok.status).toBe(200);
    expect((await api.get("/emulator/faults")).body.rate429).toBe(0.5);
    // Reads by the session need no token; the cookie alone opens nothing of the platform's API.
    expect((await browse("/emulator/faults", { cookie })).status).toBe(200);
    expect((await browse("/v2/pods", { cookie })).status).toBe(401);
    const console = emu.requestLog().filter((e) => e.via === "console" && e.op === "updateFaults");
    expect(console.map((e) => e.status)).toEqual([403, 403, 403, 200]);
    noKeyBytes();
  });

  test("a read-only session sees every page and its controls are refused with the API's 403", async () => {
    const pod = await api.createPod({ gpu: { id: RTX4090 } });
    const { cookie, csrf } = await signIn(READ_ONLY);
    const page = await browse("/console/pods", { cookie });
    expect(page.text).toContain(`data-pod-id="${pod.id}"`);
    expect(page.text).toContain("read only");
    const stop = await browse("/emulator/events", {
      method: "POST",
      cookie,
      headers: { "content-type": "application/json", "x-csrf-token": csrf },
      body: JSON.stringify({ type: "stopPod", podId: pod.id }),
    });
    expect(stop.status).toBe(403);
    expect(JSON.parse(stop.text).detail).toBe("outsideEvent needs a key with the 'write' scope; this key is read-only");
    expect((await api.get(`/v2/pods/${pod.id}`)).body.status).not.toBe("EXITED");
    noKeyBytes();
  });

  test("an item's JSON is what the API answers; the log page filters by status and marks 429s", async () => {
    const pod = await api.createPod({ gpu: { id: RTX4090 } });
    await api.post("/emulator/faults", { rate429: 1 });
    expect((await api.get("/v2/pods")).status).toBe(429);
    await api.del("/emulator/faults");
    const { cookie } = await signIn(FULL);
    await api.waitFor(pod.id, "RUNNING");
    const json = await browse(`/console/json/pods/${pod.id}`, { cookie });
    // runtime moves with uptime between the two reads; everything else is the API's answer.
    const { runtime, ...rest } = JSON.parse(json.text);
    const { runtime: apiRuntime, ...apiRest } = (await api.get(`/v2/pods/${pod.id}`)).body;
    expect(rest).toEqual(apiRest);
    expect(Object.keys(runtime)).toEqual(Object.keys(apiRuntime));
    expect((await browse("/console/json/pods/nope", { cookie })).status).toBe(404);
    const only429 = await browse("/console/log?status=429", { cookie });
    const rows = [...only429.text.matchAll(/<tr class="([^"]*)" data-status="(\d+)" data-op="(\w+)"/g)];
    expect(rows.map((r) => [r[1], r[2], r[3]])).toEqual([["r429 fault", "429", "listPods"]]);
    expect(only429.text).toContain("injected 429");
    const refreshed = await browse("/console/log?status=429", { cookie, headers: { "x-console-refresh": "1" } });
    expect(refreshed.text.startsWith("<p class=\"summary\"")).toBe(true);
    noKeyBytes();
  });

  test("the log page shows the keyed requests unless asked: 1,000 keyless ones never push a stack's create off it", async () => {
    const { cookie } = await signIn(FULL);
    await api.createVolume();
    for (let i = 0; i < 1_000; i++) expect((await fetch(`${emu.url}/v2/pods`)).status).toBe(401);
    const ops = (text: string) => [...text.matchAll(/<tr class="[^"]*" data-status="(\d+)" data-op="(\w+)"/g)].map((r) => `${r[2]} ${r[1]}`);
    const page = await browse("/console/log", { cookie });
    expect(ops(page.text)).toContain("createNetworkVolume 201");
    expect(ops(page.text).filter((o) => o.endsWith(" 401"))).toEqual([]);
    expect(page.text).toContain("1000 sent without a key not shown");
    expect(page.text).toMatch(/<option value="keyed" selected>with a key<\/option>/);
    const keyless = ops((await browse("/console/log?who=keyless", { cookie })).text);
    expect(keyless).toHaveLength(300); // the page's bound; the log holds them all
    expect(new Set(keyless)).toEqual(new Set(["listPods 401"]));
    const everyone = ops((await browse("/console/log?who=everyone", { cookie })).text);
    expect(everyone).not.toContain("createNetworkVolume 201"); // the newest 300 of everyone's are keyless
    expect(ops((await browse("/console/log?who=nobody", { cookie })).text)).toContain("createNetworkVolume 201"); // an unknown filter reads as the default
    noKeyBytes();
  });

  test("the endpoints page shows each endpoint's version, its releases with their diffs, the rollout's progress and each job's worker", async () => {
    // A clock that moves only when the test moves it: the rollout is seen half way.
    await emu.close();
    emu = await start({ clock: { now: () => Date.UTC(2026, 5, 1) } });
    const ep = (await api.post("/v2/serverless", { name: "shown", image: "worker:1", env: { SECRET_TOKEN: "hidden-value" }, gpu: { pools: ["ADA_24"] }, workers: { min: 1, max: 1 } })).body;
    emu.advanceClock(20);
    const job = (await api.post(`/v2/${ep.id}/runsync`, { input: { a: 1 } })).body;
    await api.patch(`/v2/serverless/${ep.id}`, { image: "worker:2", env: { SECRET_TOKEN: "other-value" } });
    const { cookie } = await signIn(FULL);
    const rolling = (await browse("/console/endpoints", { cookie })).text;
    expect(rolling).toMatch(new RegExp(`<tr data-endpoint-id="${ep.id}" data-version="2" data-rollout="in-progress">`));
    expect(rolling).toContain("rolling out: 0 of 2 workers on the latest (0%)");
    expect(rolling).toContain('<tr data-release-version="2">');
    expect(rolling).toContain("<code>template.image</code>: &quot;worker:1&quot; → &quot;worker:2&quot;");
    expect(rolling).toContain('<tr data-release-version="1">');
    expect(rolling).toContain(`<code>${job.workerId}</code>`);
    // env by its names: the release never shows a value.
    expect(rolling).not.toMatch(/hidden-value|other-value/);
    emu.advanceClock(20);
    const done = (await browse("/console/endpoints", { cookie })).text;
    expect(done).toContain("done: 1 of 1 workers on the latest (100%)");
    noKeyBytes();
  });

  test("sign-out ends the session", async () => {
    const { cookie, csrf } = await signIn(FULL);
    expect((await browse("/console/sign-out", { method: "POST", cookie })).status).toBe(403);
    const out = await browse("/console/sign-out", { method: "POST", cookie, headers: { "x-csrf-token": csrf } });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/^cp_console_\d+=; Path=\/console; .*Max-Age=0$/);
    expect((await browse("/console/pods", { cookie })).headers.get("location")).toBe("/console/sign-in");
    noKeyBytes();
  });
});

describe("the console and state() with several accounts", () => {
  const OTHER = "cp_test_other_console_5e21";
  test("every account's objects, each under its name, the signed-in key's first; outside events on its own rows only", async () => {
    await emu.close();
    emu = await start({
      keys: [
        { key: FULL, scopes: ["read", "write"], account: "team" },
        { key: READ_ONLY, scopes: ["read"], account: "team" },
        { key: OTHER, scopes: ["read", "write"], account: "shared" },
      ],
    });
    const made = async (path: string, body: unknown, key: string) => {
      const r = await api.post(path, body, { key });
      expect(r.status).toBe(201);
      return r.body as { id: string };
    };
    const mine = await made("/v2/pods", { name: "mine", image: "img:1", gpu: { id: RTX4090 } }, FULL);
    const theirs = await made("/v2/pods", { name: "theirs", image: "img:1", gpu: { id: RTX4090 } }, OTHER);
    const volume = await made("/v2/network-volumes", { name: "data", size: 10, dataCenter: "EU-RO-1" }, OTHER);

    // state(): the first key's account; states(): each account's own.
    const states = emu.states();
    expect(Object.keys(states)).toEqual(["team", "shared"]);
    expect(states.team.pods.map((p) => p.id)).toEqual([mine.id]);
    expect(states.shared.pods.map((p) => p.id)).toEqual([theirs.id]);
    expect(states.shared.networkVolumes.map((v) => v.id)).toEqual([volume.id]);
    expect(emu.state().pods.map((p) => p.id)).toEqual([mine.id]);

    const { cookie, csrf } = await signIn(OTHER);
    const pods = (await browse("/console/pods", { cookie })).text;
    const sections = [...pods.matchAll(/<section class="account" data-account="([^"]+)">([\s\S]*?)<\/section>/g)].map((m) => [m[1], m[2]]);
    expect(sections.map(([name]) => name)).toEqual(["shared", "team"]);
    const [shared, team] = sections.map(([, part]) => part);
    expect(shared).toContain("(this key&#39;s)");
    expect(shared).toContain(`data-pod-id="${theirs.id}"`);
    expect(shared).not.toContain(`data-pod-id="${mine.id}"`);
    expect(shared).toContain('data-event="terminatePod"');
    expect(team).toContain(`data-pod-id="${mine.id}"`);
    expect(team).not.toContain('data-event="');
    const volumes = (await browse("/console/volumes", { cookie })).text;
    expect(volumes).toMatch(new RegExp(`data-account="shared">[\\s\\S]*data-volume-id="${volume.id}"[\\s\\S]*data-account="team">[\\s\\S]*No network volumes`));
    // Any account's item by its id; the money page per account.
    expect((await browse(`/console/json/pods/${mine.id}`, { cookie })).status).toBe(200);
    expect((await browse("/console/money", { cookie })).text.match(/data-figure="per-hour"/g)).toHaveLength(2);
    // The session's events act on its key's account: another account's pod is a 404 to it.
    const event = (podId: string) =>
      browse("/console/emulator/events", {
        method: "POST",
        cookie,
        headers: { "content-type": "application/json", "x-csrf-token": csrf, origin: emu.url },
        body: JSON.stringify({ type: "terminatePod", podId }),
      });
    expect([(await event(mine.id)).status, (await event(theirs.id)).status]).toEqual([404, 200]);
    for (const s of seen) expect(s.text).not.toContain(OTHER);
  });
});
