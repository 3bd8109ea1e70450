// The emulator's rate limits: quotas, windows and their headers.
import { parseList } from "structured-headers";
import { client, expectProblem, FULL, READ_ONLY, sharedEmulator, start } from "../../../helpers/emulator-rest";

const { api, emu } = sharedEmulator();

describe("rate limits", () => {
  const LIMITED = { minute: 5, hour: 7, day: 50 };

  test("8: RateLimit and RateLimit-Policy accompany a successful response, in the exact format", async () => {
    const r = await api.get("/v2/catalog/gpus");
    expect(r.headers.get("ratelimit-policy")).toBe(
      '"minute";q=1000000;w=60, "hour";q=10000000;w=3600, "day";q=100000000;w=86400',
    );
    expect(r.headers.get("ratelimit")).toMatch(/^"minute";r=\d+;t=\d+, "hour";r=\d+;t=\d+, "day";r=\d+;t=\d+$/);
    // A structured-field parser reads them as a list with one member per window.
    const list = parseList(r.headers.get("ratelimit")!);
    expect(list.map(([name]) => name)).toEqual(["minute", "hour", "day"]);
  });

  test("8: every authenticated response carries the headers: 4xx, GraphQL and runsync too", async () => {
    const responses = [
      await fetch(`${emu().url}/v2/pods/none`, { headers: { authorization: `Bearer ${FULL}` } }),
      await fetch(`${emu().url}/graphql?api_key=${FULL}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "{ myself { endpoints { id } } }" }),
      }),
      await fetch(`${emu().url}/v2/sdxl-turbo/runsync`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${FULL}` },
        body: JSON.stringify({ input: { prompt: "a cat", width: 8, height: 8 } }),
      }),
    ];
    for (const res of responses) {
      expect(res.headers.get("ratelimit")).toMatch(/^"minute";r=/);
      expect(res.headers.get("ratelimit-policy")).toMatch(/^"minute";q=/);
    }
  });

  test("8: r counts down per request and key", async () => {
    const limited = await start({ quotas: LIMITED });
    try {
      const l = client(() => limited);
      const a = await l.get("/v2/catalog/cpus");
      const b = await l.get("/v2/catalog/cpus");
      expect(a.headers.get("ratelimit")).toMatch(/^"minute";r=4;t=60, "hour";r=6;t=3600, "day";r=49;t=86400$/);
      expect(b.headers.get("ratelimit")).toMatch(/^"minute";r=3;t=\d+, "hour";r=5;t=\d+, "day";r=48;t=\d+$/);
      // Another key has its own budget.
      expect((await l.get("/v2/catalog/cpus", { key: READ_ONLY })).headers.get("ratelimit")).toMatch(/^"minute";r=4;/);
    } finally {
      await limited.close();
    }
  });

  test("8: the minute quota exceeded -> 429 problem+json, Retry-After, detail names 'minute'", async () => {
    const limited = await start({ quotas: LIMITED });
    try {
      const l = client(() => limited);
      for (let i = 0; i < 5; i++) expect((await l.get("/v2/catalog/cpus")).status).toBe(200);
      const r = await l.get("/v2/catalog/cpus");
      expectProblem(r, 429);
      expect(r.body.detail).toMatch(/minute/);
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(Number(r.headers.get("retry-after"))).toBeLessThanOrEqual(60);
      expect(r.headers.get("ratelimit")).toMatch(/^"minute";r=0;t=\d+/);
      expect(r.headers.get("ratelimit-policy")).toBe('"minute";q=5;w=60, "hour";q=7;w=3600, "day";q=50;w=86400');
    } finally {
      await limited.close();
    }
  });

  test("8: the hour quota exceeded -> 429 whose detail names 'hour' and Retry-After waits for the hour", async () => {
    let now = 1_000_000;
    const limited = await start({ quotas: LIMITED, clock: { now: () => now } });
    try {
      const l = client(() => limited);
      for (let i = 0; i < 5; i++) await l.get("/v2/catalog/cpus");
      now += 60_000; // a new minute; the hour still counts 5
      await l.get("/v2/catalog/cpus");
      await l.get("/v2/catalog/cpus");
      const r = await l.get("/v2/catalog/cpus");
      expectProblem(r, 429);
      expect(r.body.detail).toMatch(/hour/);
      expect(Number(r.headers.get("retry-after"))).toBe(3540);
    } finally {
      await limited.close();
    }
  });

  test("8: a 429 does not spend quota, and the window resets after its length", async () => {
    let now = 5_000_000;
    const limited = await start({ quotas: LIMITED, clock: { now: () => now } });
    try {
      const l = client(() => limited);
      for (let i = 0; i < 5; i++) await l.get("/v2/catalog/cpus");
      for (let i = 0; i < 3; i++) expect((await l.get("/v2/catalog/cpus")).status).toBe(429);
      now += 59_999;
      expect((await l.get("/v2/catalog/cpus")).status).toBe(429);
      now += 1;
      const ok = await l.get("/v2/catalog/cpus");
      expect(ok.status).toBe(200);
      expect(ok.headers.get("ratelimit")).toMatch(/^"minute";r=4;t=60, "hour";r=1;/);
    } finally {
      await limited.close();
    }
  });

  test("8: timeScale 10 shrinks the windows: w=6 for the minute, and it resets after 6 real seconds", async () => {
    let now = 0;
    const fast = await start({ quotas: LIMITED, timeScale: 10, clock: { now: () => now } });
    try {
      const f = client(() => fast);
      const first = await f.get("/v2/catalog/cpus");
      expect(first.headers.get("ratelimit-policy")).toBe('"minute";q=5;w=6, "hour";q=7;w=360, "day";q=50;w=8640');
      for (let i = 0; i < 4; i++) await f.get("/v2/catalog/cpus");
      const limited = await f.get("/v2/catalog/cpus");
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBe("6");
      now += 6000;
      expect((await f.get("/v2/catalog/cpus")).status).toBe(200);
    } finally {
      await fast.close();
    }
  });

  test("8: GraphQL over quota -> HTTP 429 with the rate-limit headers", async () => {
    const limited = await start({ quotas: { minute: 1 } });
    try {
      const post = () =>
        fetch(`${limited.url}/graphql?api_key=${FULL}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: "{ myself { endpoints { id } } }" }),
        });
      expect((await post()).status).toBe(200);
      const r = await post();
      expect(r.status).toBe(429);
      expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(((await r.json()) as any).errors[0].message).toMatch(/minute/);
    } finally {
      await limited.close();
    }
  });

  test("a key with quotas of its own: its windows and headers follow them, the other keys keep the emulator's", async () => {
    const big = "cp_test_big_plan_0123456789";
    const limited = await start({
      quotas: { minute: 2 },
      keys: [
        { key: FULL, scopes: ["read", "write"] },
        { key: big, scopes: ["read", "write"], quotas: { minute: 5 } },
      ],
    });
    try {
      const get = (key: string) => fetch(`${limited.url}/v2/catalog/cpus`, { headers: { authorization: `Bearer ${key}` } });
      const statuses = async (key: string, n: number) => {
        const out: number[] = [];
        for (let i = 0; i < n; i++) out.push((await get(key)).status);
        return out;
      };
      expect(await statuses(FULL, 3)).toEqual([200, 200, 429]);
      expect(await statuses(big, 6)).toEqual([200, 200, 200, 200, 200, 429]);
      expect((await get(big)).headers.get("ratelimit-policy")).toBe('"minute";q=5;w=60, "hour";q=3000;w=3600, "day";q=50000;w=86400');
      await expect(start({ keys: [{ key: big, scopes: ["read"], quotas: { minute: 0 } }] })).rejects.toThrow("keys[0].quotas.minute must be an integer >= 1, got 0");
    } finally {
      await limited.close();
    }
  });
});
