// A GraphQL document is weighed before any resolver runs (issue 35, case 1), over real HTTP: the
// review's document of aliases multiplied through fragments is refused with QUERY_TOO_COSTLY and
// runs nothing; a level crowded with one field name is refused before validation compares its
// pairs; each mutation of a document counts against the rate limit, all of them or none.
import type { Emulator } from "../../../../../src/emulator";
import { aliasBomb, mutationBatch } from "../../../../../tools/hostile/graphql";
import { createServerlessTemplate } from "../../../../helpers/emulator-fixtures";
import { FULL, READ_ONLY, start } from "../../../../helpers/emulator-rest";

let emu: Emulator;
afterEach(async () => {
  await emu?.close();
});

async function gql(query: string, key = FULL): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${emu.url}/graphql`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function endpoints(n: number, workers: number): Promise<void> {
  const templateId = await createServerlessTemplate(emu.url, FULL);
  for (let i = 0; i < n; i++) {
    const input = `{ name: "ep${i}", gpuIds: "AMPERE_16", templateId: "${templateId}", workersMin: ${workers}, workersMax: ${workers} }`;
    const r = await gql(`mutation { saveEndpoint(input: ${input}) { id } }`);
    expect(r.body.errors).toBeUndefined();
  }
}

test("the review's document from a read-only key is refused with QUERY_TOO_COSTLY before any resolver runs", async () => {
  emu = await start();
  await endpoints(3, 2);
  const before = emu.counts().myself ?? 0;
  const r = await gql(aliasBomb(16, 8, 6), READ_ONLY);
  expect(r.status).toBe(400);
  expect(r.body.data).toBeUndefined();
  expect(r.body.errors).toHaveLength(1);
  expect(r.body.errors[0].extensions.code).toBe("QUERY_TOO_COSTLY");
  expect(r.body.errors[0].message).toMatch(/^query cost \d+ is over the limit of 10000 \(.*3 endpoint\(s\), 6 worker\(s\)\)/);
  expect(emu.counts().myself ?? 0).toBe(before);
  expect(emu.requestLog().at(-1)).toMatchObject({ path: "/graphql", op: "graphql", status: 400 });
  // The account's own read, every field and its workers, is far below the limit.
  const own = await gql(`{ myself { endpoints { id name workersMin pods { id desiredStatus } } } }`, READ_ONLY);
  expect(own.status).toBe(200);
  expect(own.body.data.myself.endpoints).toHaveLength(3);
});

test("a level crowded with one name (600 `pods`) is refused before validation compares its pairs", async () => {
  emu = await start();
  const crowded = `{ myself { endpoints { ${"pods { id } ".repeat(600)} } } }`;
  const r = await gql(crowded, READ_ONLY);
  expect(r.status).toBe(400);
  expect(r.body.errors[0]).toEqual({
    message: "'pods' is asked more than 10 times at one level (fragments included); the limit is 10",
    extensions: { code: "QUERY_TOO_COSTLY" },
  });
  const spread = `{ myself { ${Array.from({ length: 11 }, (_, i) => `...F${i}`).join(" ")} } } ${Array.from({ length: 11 }, (_, i) => `fragment F${i} on User { e${i}: endpoints { id } }`).join(" ")}`;
  expect((await gql(spread, READ_ONLY)).body.errors[0].message).toBe("more than 10 fragments are spread at one level; the limit is 10");
});

test("each mutation of a document counts against the rate limit: 100 aliased mutations are a 429, 300 too costly, none runs", async () => {
  emu = await start({ quotas: { minute: 60, hour: 3000, day: 50000 } });
  const many = await gql(mutationBatch(300));
  expect([many.status, many.body.errors?.[0]?.extensions.code]).toEqual([400, "QUERY_TOO_COSTLY"]);
  const r = await gql(mutationBatch(100));
  expect(r.status).toBe(429);
  expect(r.body.errors[0].extensions.code).toBe("RATE_LIMITED");
  expect(r.body.errors[0].message).toMatch(/minute window: this request counts as 100 requests/);
  expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
  expect(emu.counts().deleteEndpoint ?? 0).toBe(0);
  // Refused, they counted nothing (the 400 counted one): five mutations run and count five of the minute's 60.
  const five = await gql(mutationBatch(5));
  expect(five.status).toBe(200);
  expect(five.body.errors.map((e: any) => e.extensions.code)).toEqual(Array(5).fill("NOT_FOUND"));
  expect(emu.counts().deleteEndpoint).toBe(5);
  expect(five.headers.get("ratelimit")).toMatch(/^"minute";r=54;/);
});
