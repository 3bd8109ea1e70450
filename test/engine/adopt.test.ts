// `adopt` on every kind through Pulumi's own dynamic-provider plugin, against the emulator over
// real HTTP. For each kind (the endpoint over both APIs): an object made with the client is
// adopted; the preview says so and names what the first up changes; the up sends no create and
// records the object's id (an endpoint keeps its requestUrls), sending only what differs; a
// later change updates it in place; destroy deletes it. The refusals: a field that cannot change
// in place (at preview, with the way out), a missing id, another kind's id, a second resource
// adopting the same object, a pod another stack made, a replacement while adopt is set.
// The plugin loads dist/: run `npm run build` before this file alone.
import type * as pulumi from "@pulumi/pulumi";
import { NetworkVolume } from "../../src/resources/network-volume";
import { Pod } from "../../src/resources/pod";
import { RegistryCredential } from "../../src/resources/registry-credential";
import { ServerlessEndpoint } from "../../src/resources/serverless-endpoint";
import { Template } from "../../src/resources/template";
import { captureProgram, EngineStack, PROJECT, type Registration, reveal, SECRET_KEYS } from "../../tools/engine";
import { engineRigForFile } from "../../tools/engine/rig";
import { resourcesOf, resourceSteps } from "../helpers/ledger";

const KEY = "cp_sentinel_adopt_5e2b7d90c4";
const rig = engineRigForFile(KEY, { recordExchanges: 500 });

/** One program, as the SDK registers it, on stack `stack`. */
const program = (declare: () => void, stack = "dev", preview = false): Promise<Registration[]> =>
  captureProgram(declare, { project: PROJECT, stack, preview, config: rig.config, secretKeys: SECRET_KEYS });

/** The requests since `from`, as `METHOD path`. */
const requests = (from: number) => rig.emu.requestLog().slice(from).map((e) => `${e.method} ${e.path}`);
/** Wait for the preview's note (the plugin's output, as the user sees it) to say `text`. */
const noted = (text: string) => rig.plugin.waitForTranscript(text);

/**
 * The walk every kind takes: preview (a create step, the note, no write), up (no create, the
 * object's id), up again (same), `change` (an update in place, same id), destroy (deleted).
 */
async function adoptWalk(o: {
  id: string;
  noun: string;
  declare: (change: boolean) => () => void;
  /** The note's list of what the first up changes. */
  updates: string;
  /** A request that must never be sent (the kind's create). */
  create: RegExp;
  /** The objects of the kind the platform holds: never one more. */
  count: () => number;
  gone: () => boolean;
}) {
  const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "dev" });
  const from = rig.emu.requestLog().length;
  const before = o.count();
  const preview = await stack.preview(await program(o.declare(false), "dev", true));
  expect(preview.failures).toBeUndefined();
  expect(resourceSteps(preview).map((s) => s.op)).toEqual(["create"]);
  await noted(`adopts ${o.noun} ${o.id}: nothing is created; the first up updates ${o.updates} in place`);
  // The preview read the object; it wrote nothing.
  expect(rig.emu.requestLog().slice(from).filter((e) => e.method !== "GET" && e.op !== "myself")).toEqual([]);

  const up = await stack.up(await program(o.declare(false)));
  expect(up.error).toBeUndefined();
  expect(resourceSteps(up).map((s) => s.op)).toEqual(["create"]);
  const [res] = resourcesOf(stack);
  expect(res!.id).toBe(o.id);
  expect(requests(from).filter((r) => o.create.test(r))).toEqual([]);
  expect(o.count()).toBe(before);
  expect(resourceSteps(await stack.up(await program(o.declare(false)))).map((s) => s.op)).toEqual(["same"]);

  const changed = await stack.up(await program(o.declare(true)));
  expect(changed.error).toBeUndefined();
  expect(resourceSteps(changed).map((s) => [s.op, s.diff?.replaces ?? []])).toEqual([["update", []]]);
  expect(resourcesOf(stack)[0]!.id).toBe(o.id);
  const outputs = resourcesOf(stack)[0]!.outputs;

  expect((await stack.destroy()).error).toBeUndefined();
  expect(o.gone()).toBe(true);
  expect(requests(from).filter((r) => o.create.test(r))).toEqual([]);
  return { up, outputs, res: res! };
}

/** The check failures of a preview of `declare` on a stack of its own. */
async function refusal(declare: () => void, stack = "other"): Promise<{ property: string; reason: string }[] | undefined> {
  const s = new EngineStack(rig.plugin, { project: PROJECT, stack });
  return (await s.preview(await program(declare, stack, true))).failures?.failures;
}

test("NetworkVolume: a hand-made volume adopted (grown in place, data kept); its data center refused at preview", async () => {
  const v = await rig.client.networkVolumes.create({ name: "dataset", size: 20, dataCenter: "EU-RO-1" });
  const declare = (size: number, dataCenter = "EU-RO-1") => () => void new NetworkVolume("data", { name: "dataset", size, dataCenter, adopt: v.id });
  // A volume never moves: refused at preview with the way out, never a replacement.
  expect(await refusal(declare(20, "US-KS-2"))).toEqual([
    {
      property: "adopt",
      reason: `adopt: network volume ${v.id} differs from the declaration in dataCenter, which cannot change on an existing network volume; declare it as the network volume has it (dataCenter: "EU-RO-1", type: "STANDARD"), or remove adopt to create a new volume as declared (and move the data yourself)`,
    },
  ]);
  expect(await refusal(declare(10))).toEqual([{ property: "adopt", reason: expect.stringContaining("size cannot shrink from 20 to 10 GB") }]);
  await adoptWalk({
    id: v.id,
    noun: "network volume",
    declare: (change) => declare(change ? 40 : 30),
    updates: "size",
    create: /^POST \/v2\/network-volumes$/,
    count: () => rig.emu.state().networkVolumes.length,
    gone: () => !(rig.emu.state().networkVolumes as { id: string }[]).some((x) => x.id === v.id),
  });
});

test("Template: adopted by id (endpoints on it keep running it); a mount it has must be declared", async () => {
  const t = await rig.client.templates.create({ name: "console-tpl", image: "worker:1", serverless: true, mounts: { persistent: { size: 20, path: "/data" } } });
  const declare = (o: { image: string; env?: Record<string, string>; mount?: boolean }) => () =>
    void new Template("worker", {
      name: "console-tpl",
      image: o.image,
      serverless: true,
      env: o.env,
      ...(o.mount === false ? {} : { mounts: { persistent: { size: 20, path: "/data" } } }),
      adopt: t.id,
    });
  expect(await refusal(declare({ image: "worker:1", mount: false }))).toEqual([
    { property: "adopt", reason: expect.stringContaining(`template ${t.id} differs from the declaration in mounts, which cannot change on an existing template; declare it as the template has it (mounts: {"persistent":{"size":20,"path":"/data"}})`) },
  ]);
  // Another kind's id: named.
  expect(await refusal(() => void new Template("worker", { image: "x:1", adopt: "no-such-template" }))).toEqual([{ property: "adopt", reason: "adopt: there is no template with ID no-such-template" }]);
  const from = rig.emu.requestLog().length;
  const { outputs } = await adoptWalk({
    id: t.id,
    noun: "template",
    declare: (change) => declare({ image: "worker:2", env: change ? { MODE: "fast" } : undefined }),
    updates: "image",
    create: /^POST \/v2\/templates$/,
    count: () => rig.emu.state().templates.length,
    gone: () => !(rig.emu.state().templates as { id: string }[]).some((x) => x.id === t.id),
  });
  expect(reveal(outputs)).toMatchObject({ image: "worker:2", env: { MODE: "fast" } });
  // The adoption's one write was a PATCH of the image alone.
  const patches = rig.emu.exchanges().filter((x) => x.method === "PATCH" && x.path === `/v2/templates/${t.id}`);
  expect(patches.map((x) => x.requestBody)).toEqual([{ image: "worker:2" }, { env: { MODE: "fast" } }]);
  expect(requests(from)).toContain(`DELETE /v2/templates/${t.id}`);
});

test("RegistryCredential: adopting sends nothing and records the program's secrets, unverified; a secret change with adopt set is refused", async () => {
  const c = await rig.client.registries.create({ name: "ghcr", username: "robot", password: "platform-held" });
  const declare = (password: string, o: { adopt?: boolean; name?: string } = {}) => () =>
    void new RegistryCredential("ghcr", { name: o.name ?? "ghcr", username: "robot", password, ...(o.adopt === false ? {} : { adopt: c.id }) });
  // Its name cannot change: the platform has no update.
  expect(await refusal(declare("p1", { name: "ghcr-2" }))).toEqual([{ property: "adopt", reason: expect.stringContaining(`registry credential ${c.id} differs from the declaration in name`) }]);
  const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "dev" });
  expect((await stack.preview(await program(declare("program-given"), "dev", true))).failures).toBeUndefined();
  await noted(`adopts registry credential ${c.id}: nothing is created; the first up changes nothing on it; the platform never returns a credential's username and password, so state records the program's, unverified`);
  const from = rig.emu.requestLog().length;
  const up = await stack.up(await program(declare("program-given")));
  expect(up.error).toBeUndefined();
  // One read of the credential, nothing written.
  expect(requests(from)).toEqual([`GET /v2/registries/${c.id}`, `GET /v2/registries/${c.id}`]);
  const [res] = resourcesOf(stack);
  expect(res!.id).toBe(c.id);
  // The program's secrets, recorded as secrets (Pulumi's secret signature), never the platform's (it never tells).
  const SECRET_SIG = "4dabf18193072939515e22adb298388d";
  expect(res!.outputs.password).toEqual({ [SECRET_SIG]: expect.any(String), value: "program-given" });
  expect(stack.stateText()).not.toContain("platform-held");
  // A new password while adopt names it would adopt it again and delete it: refused at preview.
  const again = await stack.preview(await program(declare("rotated")));
  expect(again.error?.message).toMatch(/password cannot change on an adopted object while adopt is set .*Remove adopt/);
  // adopt removed: the change replaces it as for any credential (a new one, then the adopted one deleted).
  const replaced = await stack.up(await program(declare("rotated", { adopt: false })));
  expect(replaced.error).toBeUndefined();
  expect(resourceSteps(replaced).map((s) => [s.op, s.diff?.replaces])).toEqual([["replace", ["password"]]]);
  expect((await rig.client.registries.list()).map((r) => r.id)).not.toContain(c.id);
  expect((await stack.destroy()).error).toBeUndefined();
});

test("ServerlessEndpoint over GraphQL: adopted with its id and requestUrls; its type refused at preview; one object, one resource", async () => {
  const tpl = await rig.client.templates.create({ name: "ep-tpl", image: "worker:1", serverless: true });
  const ep = await rig.client.endpoints.save({ name: "console-api", gpuIds: "AMPERE_24", templateId: tpl.id, workersMin: 0, workersMax: 1 });
  const declare = (workersMax: number, o: { type?: "LB"; name?: string } = {}) => () =>
    void new ServerlessEndpoint(o.name ?? "api", { name: "console-api", gpuIds: "AMPERE_24", templateId: tpl.id, workersMin: 0, workersMax, type: o.type, adopt: ep.id });
  expect(await refusal(declare(1, { type: "LB" }))).toEqual([
    { property: "adopt", reason: expect.stringContaining(`endpoint ${ep.id} differs from the declaration in type, which cannot change on an existing endpoint; declare it as the endpoint has it (type: "QB"), or remove adopt to create a new endpoint as declared (its id and requestUrls would change)`) },
  ]);
  expect(await refusal(declare(1, { name: "api" }))).toBeUndefined();
  // The same endpoint adopted by a second resource in this deployment (the plugin's process): refused.
  expect(await refusal(declare(1, { name: "api2" }), "other")).toEqual([{ property: "adopt", reason: expect.stringContaining('is adopted by another resource of this deployment (ServerlessEndpoint "api")') }]);
  // A template's id, given as an endpoint's: named.
  expect(await refusal(() => void new ServerlessEndpoint("x", { gpuIds: "AMPERE_24", templateId: tpl.id, adopt: tpl.id }))).toEqual([
    { property: "adopt", reason: `adopt: there is no endpoint with ID ${tpl.id}: ${tpl.id} is a Template's ID; declare it with that kind's resource` },
  ]);
  const { res } = await adoptWalk({
    id: ep.id,
    noun: "endpoint",
    declare: (change) => declare(change ? 2 : 3),
    updates: "workersMax",
    // A GraphQL create is a saveEndpoint without id: the count says none was made.
    create: /^POST \/v2\/serverless$/,
    count: () => rig.emu.state().endpoints.length,
    gone: () => (rig.emu.state().endpoints as unknown[]).length === 0,
  });
  expect(res.outputs).toMatchObject({ workersMax: 3, requestUrls: { run: expect.stringContaining(`/v2/${ep.id}/run`), runSync: expect.stringContaining(`/v2/${ep.id}/runsync`) } });
  await rig.client.templates.delete(tpl.id);
});

test("ServerlessEndpoint over REST: adopted with the platform's requestUrls; the container changes in place", async () => {
  const ep = await rig.client.serverless.create({ name: "rest-made", image: "worker:1", gpu: { pools: ["AMPERE_24"] }, workers: { min: 0, max: 1 } });
  const declare = (image: string, workersMax = 1) => () =>
    void new ServerlessEndpoint("api", { api: "rest", name: "rest-made", container: { image }, gpuIds: "AMPERE_24", workersMin: 0, workersMax, adopt: ep.id });
  const { res } = await adoptWalk({
    id: ep.id,
    noun: "endpoint",
    declare: (change) => declare("worker:2", change ? 2 : 1),
    updates: "container.image",
    create: /^POST \/v2\/serverless$/,
    count: () => rig.emu.state().endpoints.length,
    gone: () => (rig.emu.state().endpoints as unknown[]).length === 0,
  });
  expect(reveal(res.outputs)).toMatchObject({ api: "rest", container: { image: "worker:2" }, requestUrls: ep.requestUrls });

  // Two endpoints made over GraphQL on one template: over REST a container change would change both.
  const shared = await rig.client.templates.create({ name: "shared-tpl", image: "worker:1", serverless: true });
  const [a, b] = [await rig.client.endpoints.save({ name: "a", gpuIds: "AMPERE_24", templateId: shared.id, workersMin: 0, workersMax: 0 }), await rig.client.endpoints.save({ name: "b", gpuIds: "AMPERE_24", templateId: shared.id, workersMin: 0, workersMax: 0 })];
  expect(await refusal(() => void new ServerlessEndpoint("a", { api: "rest", name: "a", container: { image: "worker:1" }, gpuIds: "AMPERE_24", workersMin: 0, workersMax: 0, adopt: a.id }))).toEqual([
    { property: "adopt", reason: `adopt: endpoint ${a.id} shares its template ${shared.id} with endpoint(s) ${b.id}: over REST a container change would change them too. Adopt it over GraphQL (api left out, templateId: "${shared.id}")` },
  ]);
  for (const e of [a, b]) await rig.client.endpoints.delete(e.id);
  await rig.client.templates.delete(shared.id);
});

test("Pod: adopted by a program, PATCHed where it differs; a pod another stack made is refused", async () => {
  const pod = await rig.client.pods.create({ name: "notebook", image: "nb:1", gpu: { id: "NVIDIA L40S" }, env: { A: "1" } });
  const declare = (env: Record<string, string>) => () => void new Pod("notebook", { name: "notebook", image: "nb:1", gpu: { id: "NVIDIA L40S" }, env, adopt: pod.id });
  await adoptWalk({
    id: pod.id,
    noun: "pod",
    declare: (change) => declare(change ? { A: "3" } : { A: "2" }),
    updates: "env",
    create: /^POST \/v2\/pods$/,
    count: () => rig.emu.state().pods.length,
    gone: () => !(rig.emu.state().pods as { id: string; status: string }[]).some((p) => p.id === pod.id && p.status !== "TERMINATED"),
  });
  // A pod a stack made carries its owner mark: another stack's resource cannot take it.
  const made = new EngineStack(rig.plugin, { project: PROJECT, stack: "maker" });
  const mine = (opts?: pulumi.CustomResourceOptions) => () => void new Pod("trainer", { name: "trainer", image: "t:1", gpu: { id: "NVIDIA L40S" } }, opts);
  expect((await made.up(await program(mine(), "maker"))).error).toBeUndefined();
  const trainer = resourcesOf(made)[0]!;
  expect(await refusal(() => void new Pod("taker", { name: "trainer", image: "t:1", gpu: { id: "NVIDIA L40S" }, adopt: trainer.id }))).toEqual([
    { property: "adopt", reason: expect.stringMatching(/^adopt: pod \S+ was made by another Pulumi resource of stack \S*maker \(its env COMPUTEPLATFORM_OWNER/) },
  ]);
  expect((await made.destroy()).error).toBeUndefined();
});
