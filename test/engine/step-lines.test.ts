// What each step does to what runs (issue 51), as the provider prints it beside the engine's
// steps, in the preview and again in the up, for the kinds beyond Pod and NetworkVolume
// (examples-lifecycle.test.ts has theirs): a serverless Template's new image rolls the workers
// of the endpoint bound to it (the platform's releases bear it out; a new env value alone rolls
// them too, the release naming the variables only), which says whose change it is; a REST endpoint's container
// change rolls its own; a new password replaces a registry credential; and a destroy prints a
// delete line per object, marking what destroys data (a volume, a pod with no network volume).
// Through Pulumi's own plugin against the emulator. The plugin loads dist/: run `npm run build`
// before this file alone.
import { NetworkVolume } from "../../src/resources/network-volume";
import { Pod } from "../../src/resources/pod";
import { RegistryCredential } from "../../src/resources/registry-credential";
import { ServerlessEndpoint } from "../../src/resources/serverless-endpoint";
import { Template } from "../../src/resources/template";
import { captureProgram, EngineStack, PROJECT, SECRET_KEYS } from "../../tools/engine";
import { resolvingIds } from "../../tools/engine/examples";
import { engineRigForFile } from "../../tools/engine/rig";
import { ComputePlatform } from "../../src/client";
import { releaseRolls } from "../../src/resources/serverless-endpoint/rollout-plan";
import { resourcesOf, resourceSteps } from "../helpers/ledger";

const KEY = "cp_sentinel_step_lines_41f7a2";
const rig = engineRigForFile(KEY);

/** Endpoint `id`'s releases, read over REST as any client would. */
async function releasesOf(id: string) {
  const client = new ComputePlatform({ apiKey: KEY, apiUrl: rig.emu.url, serverlessUrl: rig.emu.url, pacing: false });
  try {
    return await client.serverless.releases(id);
  } finally {
    await client.close();
  }
}

const versionOf = async (id: string) => (await releasesOf(id)).endpointVersion ?? 0;

/** The fields of the releases endpoint `id` made after version `after` that roll its workers (the platform's own word). */
const rolledSince = async (id: string, after: number): Promise<string[]> =>
  (await releasesOf(id)).releases.filter((r) => (r.version ?? 0) > after).flatMap((r) => r.diff.filter((d) => releaseRolls([d])).map((d) => d.field));

type Version = { image: string; password: string; model?: string };

const program = (v: Version) => () => {
  new NetworkVolume("data", { size: 20, dataCenter: "EU-RO-1" });
  new Pod("scratch", { image: "busybox:1", cpu: { id: "cpu3c", vcpuCount: 2 }, dataCenterIds: ["EU-RO-1"] });
  new RegistryCredential("registry", { username: "ci", password: v.password });
  const worker = new Template("worker", { image: v.image, serverless: true, env: { MODEL: v.model ?? "a" } });
  new ServerlessEndpoint("api", { gpuIds: "AMPERE_24", templateId: worker.id, workersMin: 0, workersMax: 1 });
  new ServerlessEndpoint("rest-api", { api: "rest", container: { image: v.image }, gpuIds: "AMPERE_24", workersMin: 0, workersMax: 1 });
};

async function regs(stack: EngineStack, v: Version, preview: boolean) {
  const captured = await captureProgram(program(v), { project: PROJECT, stack: stack.stack, preview, config: rig.config, secretKeys: SECRET_KEYS });
  return resolvingIds(stack, captured, { preview });
}

/** The plugin's lines a phase printed: `lines` waited for (stdout arrives after the answer), then the phase's own text. */
async function printed(phase: () => Promise<{ error?: Error }>, lines: string[]): Promise<string> {
  const from = rig.plugin.transcript().length;
  const result = await phase();
  expect(result.error).toBeUndefined();
  const mine = () => rig.plugin.transcript().slice(from);
  const until = Date.now() + 5_000;
  while (!lines.every((l) => mine().includes(l)) && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  return mine();
}

test("a template's image, a REST container and a password: preview and up print what each does; destroy marks what destroys data", async () => {
  const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "lines" });
  const v1 = { image: "worker:1", password: "first" };
  const v2 = { image: "worker:2", password: "second" };
  const first = await stack.up(await regs(stack, v1, false));
  expect([first.error, first.failures]).toEqual([undefined, undefined]);

  const changed = [
    'Template "worker": updated in place (image); every endpoint running it rolls its workers (image)',
    'ServerlessEndpoint "api": no request to it; its workers roll, each replaced by one of the new version (template.image by its Template "worker"); up waits for the rollout',
    'ServerlessEndpoint "rest-api": updated in place (container.image); its workers roll, each replaced by one of the new version (template.image); up waits for the rollout',
    "RegistryCredential \"registry\": replaced (password): a new one is made, then the old deleted; lost: the old credential (what names it through this resource's id follows the new one)",
  ];
  let preview: Awaited<ReturnType<EngineStack["preview"]>> | undefined;
  const inPreview = await printed(async () => (preview = await stack.preview(await regs(stack, v2, true))), changed);
  expect(Object.fromEntries(resourceSteps(preview!).map((s) => [s.urn.split("::").at(-1), s.op]))).toMatchObject({ worker: "update", api: "update", "rest-api": "update", registry: "replace", data: "same", scratch: "same" });
  for (const line of changed) expect(inPreview).toContain(line);
  // Nothing else changed, so no other step prints a line.
  expect(inPreview).not.toMatch(/(NetworkVolume|Pod) "/);

  const apiId = resourcesOf(stack).find((r) => r.urn.endsWith("::api"))!.id;
  const before = await versionOf(apiId);
  const inUp = await printed(async () => stack.up(await regs(stack, v2, false)), changed);
  for (const line of changed) expect(inUp).toContain(line);
  const oldCredential = /RegistryCredential (\S+): deleted; lost: the credential\n/.exec(inUp);
  expect(oldCredential).not.toBeNull();
  // The Template's line held to the platform: its new image made a release that rolls the endpoint running it.
  expect(await rolledSince(apiId, before)).toEqual(["template.image"]);

  // A new value of an env variable it has: a release that rolls the endpoint, which names the
  // variables on both sides (never a value), and the Template's line says so.
  const v3 = { ...v2, model: "b" };
  const at = await versionOf(apiId);
  const valueLine = 'Template "worker": updated in place (env); every endpoint running it rolls its workers (env)\n';
  const valueOnly = await printed(async () => stack.up(await regs(stack, v3, false)), [valueLine]);
  expect(valueOnly).toContain(valueLine);
  expect(await rolledSince(apiId, at)).toEqual(["template.env"]);

  const ids = Object.fromEntries(resourcesOf(stack).map((r) => [r.urn.split("::").at(-1), r.id]));
  const deleted = [
    `NetworkVolume ${ids.data}: deleted; lost: its data [DESTROYS DATA]`,
    `Pod ${ids.scratch}: deleted; lost: its container disk and its public address [DESTROYS DATA]`,
    `RegistryCredential ${ids.registry}: deleted; lost: the credential`,
    `Template ${ids.worker}: deleted; lost: the template (it runs nothing itself)`,
    `ServerlessEndpoint ${ids.api}: deleted; lost: its workers, its id and its request URLs`,
    `ServerlessEndpoint ${ids["rest-api"]}: deleted; lost: its workers, its id and its request URLs`,
  ];
  const inDestroy = await printed(() => stack.destroy(), deleted);
  for (const line of deleted) expect(inDestroy).toContain(line);
}, 120_000);
