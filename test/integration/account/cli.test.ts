// The command (`computeplatform-account`, account/cli.ts) against the emulator over real HTTP: a
// table or JSON of what the account holds, a program written to a file, the key read from the
// environment only and never printed with any secret, and bad input named before any request.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../../src/account/cli";
import type { Sweep } from "../../../src/account/sweep";
import { ComputePlatform } from "../../../src/client";
import { type Emulator, startEmulator } from "../../../src/emulator";

let emu: Emulator;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, quotas: { minute: 1_000_000, hour: 10_000_000, day: 100_000_000 } });
  dir = mkdtempSync(join(tmpdir(), "account-cli-"));
  env = { COMPUTEPLATFORM_API_KEY: emu.apiKey, COMPUTEPLATFORM_API_URL: emu.url };
  const client = new ComputePlatform({ apiKey: emu.apiKey, apiUrl: emu.url, pacing: false });
  await client.networkVolumes.create({ name: "datasets", size: 500, dataCenter: "US-KS-2" });
  await client.registries.create({ name: "ghcr", username: "robot", password: "never-printed-9f2" });
  await client.pods.create({ name: "notebook", image: "nb:1", cpu: { id: "cpu3c", vcpuCount: 4 } });
  await client.close();
});

afterAll(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

test("the command: a table and JSON, the key from the environment only, no secret printed; bad input named", async () => {
  const table = await main([], env);
  expect(table.split("\n")[0]).toMatch(/^KIND\s+ID\s+NAME\s+STATE\s+OWNER\s+\$\/HOUR\s+\$\/MONTH\s+COST$/);
  expect(table).toMatch(/\n\d+ objects: \$\d+\.\d{4}\/hour, \$\d+\.\d{2}\/month at today's rate\n/);
  const json = JSON.parse(await main(["--json", "--kinds", "NetworkVolume,RegistryCredential"], env)) as Sweep;
  expect(new Set(json.objects.map((o) => o.kind))).toEqual(new Set(["NetworkVolume", "RegistryCredential"]));
  for (const out of [table, JSON.stringify(json)]) {
    expect(out).not.toContain(emu.apiKey);
    expect(out).not.toContain("never-printed-9f2");
  }
  await expect(main(["--kinds", "Pods"], env)).rejects.toThrow("--kinds: Pods is not a kind; the kinds are Pod, ServerlessEndpoint, NetworkVolume, Template, RegistryCredential");
  await expect(main([], { COMPUTEPLATFORM_API_URL: emu.url })).rejects.toThrow("No API key: set COMPUTEPLATFORM_API_KEY");
  await expect(main(["--state", join(dir, "missing.json")], env)).rejects.toThrow(/--state .*missing\.json: ENOENT/);
  expect(await main(["--help"], {})).toContain("never from an option");
});

test("program: printed, or written to --out with what it left out; the filters narrow it; the secret only as config", async () => {
  const printed = await main(["program", "--kinds", "RegistryCredential"], env);
  expect(printed).toContain("ghcr");
  expect(printed).not.toContain("notebook");
  expect(printed).not.toContain("never-printed-9f2");
  const out = join(dir, "adopt", "index.ts");
  const report = await main(["program", "--out", out, "--name", "data"], env);
  expect(report.split("\n")[0]).toBe(`wrote ${out}`);
  const written = readFileSync(out, "utf8");
  expect(written).toContain("datasets");
  expect(written).not.toContain("notebook");
  expect(`${report}${written}`).not.toContain(emu.apiKey);
});

test("an unknown command, or no address, is refused before any request", async () => {
  const before = emu.requestLog().length;
  await expect(main(["delete"], env)).rejects.toThrow('unknown command "delete"; see --help');
  await expect(main([], { COMPUTEPLATFORM_API_KEY: emu.apiKey })).rejects.toThrow("No API address: set COMPUTEPLATFORM_API_URL or give --api-url");
  expect(emu.requestLog().length).toBe(before);
  // --api-url stands in for the environment's address.
  expect(await main(["--kinds", "Pod", "--api-url", emu.url], { COMPUTEPLATFORM_API_KEY: emu.apiKey })).toContain("notebook");
});
