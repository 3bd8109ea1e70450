// The console's session stays its own (issue 35, cases 3 to 8), over real HTTP: a bad escape is a
// 400 with the console's headers; the cookie belongs to one emulator; only the emulator's own host
// names are served; sign-in slows after failures; keyless requests cannot push authenticated ones
// out of the request log; one key's sign-ins cannot end another key's sessions.
import type { Emulator } from "../../../src/emulator";
import { FULL, READ_ONLY, start } from "../../helpers/emulator-rest";

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
