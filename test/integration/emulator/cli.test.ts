// The computeplatform-emulator command (src/emulator/cli.ts) as a user starts it.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ComputePlatform } from "../../../src/client";
import { createServerlessTemplate } from "../../helpers/emulator-fixtures";
import { RTX4090 } from "../../helpers/emulator-rest";

const REPO = join(__dirname, "../../..");

describe("the computeplatform-emulator command (dist/emulator/cli.js; `npm test` builds first)", () => {
  const cli = join(REPO, "dist/emulator/cli.js");
  const node = process.execPath;

  function run(args: string[]): { child: ReturnType<typeof spawn>; output: () => string } {
    const child = spawn(node, [cli, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout!.on("data", (d) => {
      text += d;
    });
    child.stderr!.on("data", (d) => {
      text += d;
    });
    return { child, output: () => text };
  }

  // A bound for a command that hangs, not a speed target: on a loaded 2-core machine (CI at load
  // 20) the command took more than 10 s to print its first lines.
  async function until(cond: () => boolean, limitMs = 45_000): Promise<void> {
    const deadline = Date.now() + limitMs;
    while (!cond()) {
      if (Date.now() > deadline) throw new Error("timed out waiting for the emulator command");
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  const exited = (child: ReturnType<typeof spawn>) =>
    new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  test("the bin starts with a node shebang", () => {
    expect(fs.readFileSync(join(REPO, "src/emulator/cli.ts"), "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
  });

  test("--help lists every option", async () => {
    const { child, output } = run(["--help"]);
    expect(await exited(child)).toBe(0);
    for (const flag of [
      "--port", "--host", "--allowed-host", "--key", "--state-file", "--quota-minute", "--quota-hour", "--quota-day", "--provisioning-ms",
      "--starting-ms", "--drain-ms", "--time-scale", "--seed", "--rate-429", "--rate-5xx", "--drop-rate", "--slow-ms",
      "--error-image", "--no-capacity", "--graphql-save-resets", "--account",
    ]) {
      expect(output()).toContain(flag);
    }
  });

  test("--graphql-save-resets: a GraphQL save of an endpoint resets the fields it leaves out", async () => {
    const { child, output } = run(["--port", "0", "--key", "cp_cli_reset", "--graphql-save-resets"]);
    try {
      await until(() => /COMPUTEPLATFORM_API_KEY=/.test(output()));
      const url = /export COMPUTEPLATFORM_API_URL=(\S+)/.exec(output())![1];
      const h = { authorization: "Bearer cp_cli_reset", "content-type": "application/json" };
      const tpl = (await (await fetch(`${url}/v2/templates`, { method: "POST", headers: h, body: JSON.stringify({ name: "w", image: "w:1", serverless: true }) })).json()) as any;
      const gql = async (query: string) =>
        ((await (await fetch(`${url}/graphql`, { method: "POST", headers: h, body: JSON.stringify({ query }) })).json()) as any).data.saveEndpoint;
      const made = await gql(`mutation { saveEndpoint(input: { name: "e", gpuIds: "ADA_24", templateId: "${tpl.id}", workersMax: 7, idleTimeout: 60 }) { id } }`);
      const saved = await gql(`mutation { saveEndpoint(input: { id: "${made.id}", name: "e", gpuIds: "ADA_24", templateId: "${tpl.id}" }) { workersMax idleTimeout } }`);
      expect(saved).toEqual({ workersMax: 3, idleTimeout: 5 });
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited(child)).toBe(0);
  });

  test("--account groups keys: a key of one account lists none of another's pods and reads its id as 404; a bad spec is refused", async () => {
    const { child, output } = run(["--port", "0", "--account", "team=cp_cli_team", "--account", "shared=cp_cli_shared", "--account", "shared=cp_cli_shared_ro:read"]);
    try {
      await until(() => /COMPUTEPLATFORM_API_KEY=/.test(output()));
      const url = /export COMPUTEPLATFORM_API_URL=(\S+)/.exec(output())![1];
      const call = (key: string, path: string, init: RequestInit = {}) =>
        fetch(`${url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" } });
      const pod = (await (await call("cp_cli_shared", "/v2/pods", { method: "POST", body: JSON.stringify({ name: "s", image: "s:1", gpu: { id: RTX4090 } }) })).json()) as any;
      expect(((await (await call("cp_cli_shared_ro", "/v2/pods")).json()) as any).pods.map((p: any) => p.id)).toEqual([pod.id]);
      expect(((await (await call("cp_cli_team", "/v2/pods")).json()) as any).pods).toEqual([]);
      expect((await call("cp_cli_team", `/v2/pods/${pod.id}`)).status).toBe(404);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited(child)).toBe(0);
    const bad = run(["--port", "0", "--account", "cp_no_name"]);
    expect(await exited(bad.child)).toBe(2);
    expect(bad.output()).toContain("--account needs <name>=<key[:scopes]>, got 'cp_no_name'");
  });

  test("--state-file is one emulator's: a second start is refused naming the first; after a kill -9 the next one takes the lock over", async () => {
    const dir = fs.mkdtempSync(join(tmpdir(), "cp-cli-lock-"));
    const file = join(dir, "state.json");
    const args = ["--port", "0", "--key", "cp_cli_lock", "--state-file", file];
    const urlOf = (text: string) => /export COMPUTEPLATFORM_API_URL=(\S+)/.exec(text)![1];
    const h = { authorization: "Bearer cp_cli_lock", "content-type": "application/json" };
    const first = run(args);
    let third: ReturnType<typeof run> | undefined;
    try {
      await until(() => /COMPUTEPLATFORM_API_KEY=/.test(first.output()));
      const firstUrl = urlOf(first.output());
      const created = await fetch(`${firstUrl}/v2/pods`, { method: "POST", headers: h, body: JSON.stringify({ name: "acked", image: "i:1", gpu: { id: RTX4090 } }) });
      expect(created.status).toBe(201);
      const pod = (await created.json()) as { id: string };

      const second = run(args);
      await until(() => second.child.exitCode !== null || /COMPUTEPLATFORM_API_KEY=/.test(second.output()));
      second.child.kill("SIGKILL"); // if it started after all, it must not outlive the test
      expect(second.output()).toContain(`in use by another emulator (pid ${first.child.pid}, ${firstUrl}`);
      expect(second.child.exitCode).toBe(2);

      // Killed outright: no close, the lock stays behind, held by a pid that no longer runs.
      first.child.kill("SIGKILL");
      await exited(first.child);
      expect(fs.existsSync(`${file}.lock`)).toBe(true);
      third = run(args);
      await until(() => /COMPUTEPLATFORM_API_KEY=/.test(third!.output()));
      const again = await fetch(`${urlOf(third.output())}/v2/pods/${pod.id}`, { headers: h });
      expect(((await again.json()) as { name: string }).name).toBe("acked");
      expect(JSON.parse(fs.readFileSync(`${file}.lock`, "utf8")).pid).toBe(third.child.pid);
    } finally {
      first.child.kill("SIGKILL");
      third?.child.kill("SIGTERM");
      if (third) expect(await exited(third.child)).toBe(0);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("an unknown flag exits 2 with a message", async () => {
    const { child, output } = run(["--bogus"]);
    expect(await exited(child)).toBe(2);
    expect(output()).toMatch(/bogus/);
  });

  test("it prints its address, a working key and the env vars; keys, quotas and faults apply; SIGTERM closes it", async () => {
    const { child, output } = run([
      "--port", "0", "--key", "cp_cli_full", "--key", "cp_cli_ro:read", "--quota-minute", "3", "--time-scale", "10",
      "--no-capacity", `${RTX4090}@US-TX-3`,
    ]);
    try {
      await until(() => /COMPUTEPLATFORM_API_KEY=/.test(output()));
      const url = /export COMPUTEPLATFORM_API_URL=(\S+)/.exec(output())![1];
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(output()).toContain("export COMPUTEPLATFORM_API_KEY=cp_cli_full");
      const h = { authorization: "Bearer cp_cli_full", "content-type": "application/json" };
      const created = await fetch(`${url}/v2/pods`, {
        method: "POST",
        headers: h,
        body: JSON.stringify({ name: "x", image: "i", gpu: { id: RTX4090 }, dataCenterIds: ["US-TX-3"] }),
      });
      expect(created.status).toBe(400);
      expect(created.headers.get("ratelimit-policy")).toMatch(/^"minute";q=3;w=6, /);
      const ro = await fetch(`${url}/v2/network-volumes`, {
        method: "POST",
        headers: { ...h, authorization: "Bearer cp_cli_ro" },
        body: JSON.stringify({ name: "v", size: 10, dataCenter: "US-TX-3" }),
      });
      expect(ro.status).toBe(403);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited(child)).toBe(0);
  });
});

describe("following the banner (dist/emulator/cli.js on a port of its own)", () => {
  const cli = join(REPO, "dist/emulator/cli.js");

  /** A free loopback port that is not the emulator's default. */
  async function freePort(): Promise<number> {
    for (;;) {
      const port = await new Promise<number>((resolve, reject) => {
        const s = createServer();
        s.once("error", reject);
        s.listen(0, "127.0.0.1", () => {
          const { port: p } = s.address() as AddressInfo;
          s.close(() => resolve(p));
        });
      });
      if (port !== 8787) return port;
    }
  }

  test("its exports are every setting the client needs: pods, endpoints and runSync all work with them alone", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [cli, "--port", String(port), "--provisioning-ms", "10", "--starting-ms", "10"], { stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout!.on("data", (d) => (text += d));
    child.stderr!.on("data", (d) => (text += d));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    let cp: ComputePlatform | undefined;
    try {
      const deadline = Date.now() + 10_000;
      while (!/COMPUTEPLATFORM_SERVERLESS_URL=/.test(text)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no banner: ${text}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      // What a user's shell gets from the banner's export lines, and nothing else.
      const env = Object.fromEntries([...text.matchAll(/^ {2}export (\w+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
      expect(Object.keys(env).sort()).toEqual(["COMPUTEPLATFORM_API_KEY", "COMPUTEPLATFORM_API_URL", "COMPUTEPLATFORM_SERVERLESS_URL"]);
      expect(env.COMPUTEPLATFORM_API_URL).toBe(`http://127.0.0.1:${port}`);
      // The same three settings as stack config, for a Pulumi program.
      expect(text).toContain(`pulumi config set computeplatform:apiUrl http://127.0.0.1:${port}`);
      expect(text).toContain(`pulumi config set computeplatform:serverlessUrl http://127.0.0.1:${port}`);
      expect(text).toContain(`pulumi config set --secret computeplatform:apiKey ${env.COMPUTEPLATFORM_API_KEY}`);
      cp = new ComputePlatform({ env, pacing: false });

      const pod = await cp.pods.create({ name: "banner", image: "app:1", gpu: { id: "NVIDIA L40S" } });
      expect((await cp.pods.get(pod.id)).name).toBe("banner");
      const templateId = await createServerlessTemplate(env.COMPUTEPLATFORM_API_URL!, env.COMPUTEPLATFORM_API_KEY!);
      const endpoint = await cp.endpoints.save({ name: "banner", gpuIds: "AMPERE_24", templateId, workersMin: 0, workersMax: 0 });
      expect((await cp.endpoints.get(endpoint.id)).name).toBe("banner");
      const out = await cp.models.runSync("sdxl-turbo", { prompt: "a red cube", width: 64, height: 64 });
      expect(out.status).toBe("COMPLETED");
      await cp.endpoints.delete(endpoint.id);
      await cp.pods.delete(pod.id);
    } finally {
      await cp?.close();
      child.kill("SIGTERM");
      await exited;
    }
  });
});
