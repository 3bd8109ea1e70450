// A job's webhook (docs/emulator.md, "Jobs on the account's own endpoints"): the final answer
// POSTed once as JSON, to a loopback address only, a redirect never followed; what became of the
// call is kept on the job. Against a bare loopback server, no emulator.
import * as http from "node:http";
import type { Job } from "../../../../../src/emulator/serverless/jobs/job";
import { Webhooks } from "../../../../../src/emulator/serverless/jobs/webhook";

interface Hit {
  path: string;
  type: string | undefined;
  body: string;
}

const hits: Hit[] = [];
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      hits.push({ path: req.url!, type: req.headers["content-type"], body });
      if (req.url === "/moved") res.writeHead(307, { location: `${base}/elsewhere` }).end();
      else res.writeHead(req.url === "/broken" ? 500 : 204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  hits.length = 0;
});

const job = (webhook: string) => ({ id: "j1", webhook }) as Job;

async function deliver(webhook: string, answer: unknown = { id: "j1", status: "COMPLETED", output: { a: 1 } }): Promise<Job> {
  const hooks = new Webhooks();
  const j = job(webhook);
  hooks.deliver(j, answer);
  await Promise.all(hooks.calls);
  return j;
}

test("the answer is POSTed once as JSON, and the status is kept on the job", async () => {
  const j = await deliver(`${base}/hook`);
  expect(hits).toEqual([{ path: "/hook", type: "application/json", body: '{"id":"j1","status":"COMPLETED","output":{"a":1}}' }]);
  expect(j.webhookResult).toBe("called: 204");
  expect((await deliver(`${base}/broken`)).webhookResult).toBe("called: 500");
});

test("an address not on loopback is not called, and the job says why", async () => {
  const hooks = new Webhooks();
  const j = job("http://192.0.2.1/hook");
  hooks.deliver(j, {});
  expect(hooks.calls).toEqual([]);
  expect(j.webhookResult).toBe("not called: the emulator calls loopback addresses only");
});

test("a redirect is not followed: its target gets nothing, and the delivery failed", async () => {
  const j = await deliver(`${base}/moved`);
  expect(hits.map((h) => h.path)).toEqual(["/moved"]);
  expect(j.webhookResult).toBe("call failed: answered 307, a redirect (not followed)");
});

test("a loopback address nothing listens on is a failed call, named", async () => {
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
  const port = (closed.address() as { port: number }).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const j = await deliver(`http://127.0.0.1:${port}/hook`);
  expect(j.webhookResult).toMatch(/^call failed: /);
});

test("while the call is under way the job reads calling", () => {
  const hooks = new Webhooks();
  const j = job(`${base}/hook`);
  hooks.deliver(j, {});
  expect(j.webhookResult).toBe("calling");
  return Promise.all(hooks.calls);
});
