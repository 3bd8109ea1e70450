// State after a step that fails, through Pulumi's own plugin against the emulator: a change the
// platform did not take (a 5xx, its own 400) stays pending, so the next preview still shows it
// and the next up applies it; a change it took but whose answer was lost (the connection cut
// after the platform processed it) converges on the next up. Locking and a restarting change in
// one up; a locked pod whose credential is replaced, refused at preview; no secret input copied
// into an output of another name. The plugin loads dist/: `npm run build` before this file alone.
import * as pulumi from "@pulumi/pulumi";
import { Pod, type PodArgs } from "../../src/resources/pod";
import { RegistryCredential } from "../../src/resources/registry-credential";
import { ServerlessEndpoint } from "../../src/resources/serverless-endpoint";
import { captureProgram, EngineStack, isSecret, PROJECT, type Registration, SECRET_KEYS, UNKNOWN } from "../../tools/engine";
import { createServerlessTemplate } from "../helpers/emulator-fixtures";
import { engineRigForFile } from "../../tools/engine/rig";
import { resourcesOf, resourceSteps } from "../helpers/ledger";

const KEY = "cp_sentinel_failed_steps_4c81d2e6";
const SECRET_NAME = "sentinel-secret-name-5f0e2a";
const SECRET_GPU = "NVIDIA L40S";
const CPU = { id: "cpu3c", vcpuCount: 2 };
const TIMEOUT_MS = 120_000;

const rig = engineRigForFile(KEY);

const capture = (program: () => void, preview = false): Promise<Registration[]> =>
  captureProgram(program, { project: PROJECT, stack: "dev", preview, config: rig.config, secretKeys: SECRET_KEYS });

const pod = (args: Partial<PodArgs>, name = "trainer") =>
  capture(() => {
    new Pod(name, { image: "img/app:1", ...(args.gpu ? {} : { cpu: CPU }), ...args } as PodArgs);
  });

const livePod = (id: string): any => rig.emu.state().pods.find((p: any) => p.id === id);
const only = (stack: EngineStack) => resourcesOf(stack)[0]!;
const ops = (r: { steps: { urn: string; op: string }[] }) => resourceSteps(r as any).map((s) => s.op);
/** The PATCHes of pod `id` fail: every retry of the client meets the fault. */
const failPatches = (id: string, fault: "5xx" | "drop", times = 20) => rig.emu.setFaults({ aimed: [{ method: "PATCH", path: `/v2/pods/${id}`, fault, times }] });

test(
  "case 2: an env key and args removed, the PATCH answered 5xx: the next preview still shows the change and the next up applies it",
  async () => {
    const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "env-5xx" });
    const base = { env: { MODEL: "llama", HF_TOKEN: "hf_x" }, args: "--serve" };
    expect((await stack.up(await pod(base))).error).toBeUndefined();
    const id = only(stack).id;

    failPatches(id, "5xx");
    const failed = await stack.up(await pod({ env: { MODEL: "llama" } }));
    rig.emu.setFaults({});
    expect(failed.error?.message).toMatch(/500|502|503|failed/);
    expect(livePod(id).env).toMatchObject({ HF_TOKEN: "hf_x" });
    expect(livePod(id).args).toBe("--serve");

    const again = await stack.preview(await pod({ env: { MODEL: "llama" } }));
    expect(again.error).toBeUndefined();
    expect(ops(again)).toEqual(["update"]);
    const fixed = await stack.up(await pod({ env: { MODEL: "llama" } }));
    expect(fixed.error).toBeUndefined();
    expect(livePod(id).env.HF_TOKEN).toBeUndefined();
    expect(livePod(id).args).toBe("");
    expect(ops(await stack.preview(await pod({ env: { MODEL: "llama" } })))).toEqual(["same"]);
    expect((await stack.destroy()).error).toBeUndefined();
  },
  TIMEOUT_MS,
);

test(
  "case 2: a removed env key whose PATCH the platform processed but whose answer was lost converges on the next up",
  async () => {
    const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "env-drop" });
    expect((await stack.up(await pod({ env: { MODEL: "llama", HF_TOKEN: "hf_x" } }))).error).toBeUndefined();
    const id = only(stack).id;
    failPatches(id, "drop", 1);
    const failed = await stack.up(await pod({ env: { MODEL: "llama" }, image: "img/app:2" }));
    rig.emu.setFaults({});
    const fixed = await stack.up(await pod({ env: { MODEL: "llama" }, image: "img/app:2" }));
    expect(failed.error === undefined || fixed.error === undefined).toBe(true);
    expect(fixed.error).toBeUndefined();
    expect(livePod(id)).toMatchObject({ image: "img/app:2", status: "RUNNING" });
    expect(livePod(id).env.HF_TOKEN).toBeUndefined();
    expect(ops(await stack.preview(await pod({ env: { MODEL: "llama" }, image: "img/app:2" })))).toEqual(["same"]);
    expect((await stack.destroy()).error).toBeUndefined();
  },
  TIMEOUT_MS,
);

test(
  "case 2: globalNetworking refused by the platform (400): still pending at the next preview",
  async () => {
    const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "gn-400" });
    // A data center without global networking: the platform refuses it there (400).
    const gpuPod = { gpu: { id: SECRET_GPU }, dataCenterIds: ["EU-CZ-1"] };
    expect((await stack.up(await pod(gpuPod))).error).toBeUndefined();
    const failed = await stack.up(await pod({ ...gpuPod, globalNetworking: true }));
    expect(failed.error?.message).toMatch(/globalNetworking/);
    const again = await stack.preview(await pod({ ...gpuPod, globalNetworking: true }));
    expect(again.error).toBeUndefined();
    expect(ops(again)).toEqual(["update"]);
    expect((await stack.destroy()).error).toBeUndefined();
  },
  TIMEOUT_MS,
);

test(
  "case 5: locking a running pod and changing its image in one up: restarted first, locked last",
  async () => {
    const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "lock-image" });
    expect((await stack.up(await pod({}))).error).toBeUndefined();
    const id = only(stack).id;
    const preview = await stack.preview(await pod({ image: "img/app:2", locked: true }));
    expect(preview.error).toBeUndefined();
    expect(ops(preview)).toEqual(["update"]);
    const up = await stack.up(await pod({ image: "img/app:2", locked: true }));
    expect(up.error).toBeUndefined();
    expect(livePod(id)).toMatchObject({ image: "img/app:2", locked: true, status: "RUNNING" });
    expect(ops(await stack.preview(await pod({ image: "img/app:2", locked: true })))).toEqual(["same"]);
    expect((await stack.destroy()).error).toBeUndefined();
  },
  TIMEOUT_MS,
);

test(
  "case 6: a locked running pod whose credential is being replaced (its id unknown at preview) is refused at preview",
  async () => {
    const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "locked-cred" });
    const program = (username: string) =>
      capture(() => {
        const cred = new RegistryCredential("ghcr", { username, password: "pw-1", deleteWaitSeconds: 1 });
        new Pod("app", { image: "ghcr.io/acme/private:1", cpu: CPU, registry: cred.id, locked: true });
      });
    const resolve = (regs: Registration[], credId: unknown) =>
      regs.map((r) => (r.type.endsWith(":Pod") ? { ...r, inputs: { ...r.inputs, registry: credId } } : r));
    const first = await program("robot-1");
    const credOf = () => [...stack.resources.values()].find((r) => r.type.endsWith(":RegistryCredential"));
    // The credential first, then the pod with its id, as the engine resolves it.
    expect((await stack.up(first.filter((r) => !r.type.endsWith(":Pod")))).error).toBeUndefined();
    expect((await stack.up(resolve(first, credOf()!.id))).error).toBeUndefined();
    const podId = resourcesOf(stack).find((r) => r.type.endsWith(":Pod"))!.id;
    expect(livePod(podId)).toMatchObject({ locked: true, status: "RUNNING" });

    // A new username replaces the credential: at preview its id is unknown, and certain to change.
    const rotated = resolve(await program("robot-2"), UNKNOWN);
    const preview = await stack.preview(rotated);
    expect(preview.error?.message).toMatch(/locked/);
    expect(preview.error?.message).toMatch(/registry/);

    const unlock = await program("robot-1");
    const unlocked = resolve(unlock, credOf()!.id).map((r) => (r.type.endsWith(":Pod") ? { ...r, inputs: { ...r.inputs, locked: false } } : r));
    expect((await stack.up(unlocked)).error).toBeUndefined();
    expect((await stack.destroy()).error).toBeUndefined();
  },
  TIMEOUT_MS,
);

test(
  "case 7: secret inputs (name, gpu.id list, maxHourlyCost; an endpoint's name) are in no plain output of another name",
  async () => {
    const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "secrets" });
    const templateId = await createServerlessTemplate(rig.emu.url, KEY, { name: "failed-steps-tpl" });
    const regs = await capture(() => {
      new Pod("trainer", {
        name: pulumi.secret(SECRET_NAME),
        image: "img/app:1",
        gpu: { id: pulumi.secret([SECRET_GPU, "NVIDIA A40"]) as any },
        maxHourlyCost: pulumi.secret(7.25),
      });
      new ServerlessEndpoint("api", { name: pulumi.secret(`${SECRET_NAME}-ep`), gpuIds: "ADA_24", templateId, workersMax: 1, waitForWorkers: false });
    });
    const up = await stack.up(regs);
    expect(up.error).toBeUndefined();
    expect((await stack.refresh()).error).toBeUndefined();
    // Every value Pulumi marked secret is encrypted in a state file: look at the rest.
    const plain = (v: unknown): unknown => {
      if (isSecret(v)) return "[secret]";
      if (Array.isArray(v)) return v.map(plain);
      if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
      return v;
    };
    for (const res of resourcesOf(stack)) {
      const { name: _n, gpu: _g, maxHourlyCost: _m, ...others } = res.outputs;
      const { name: _in, gpu: _ig, maxHourlyCost: _im, ...otherInputs } = res.inputs;
      const text = JSON.stringify(plain({ others, otherInputs }));
      expect(text).not.toContain(SECRET_NAME);
      expect(text).not.toContain(SECRET_GPU);
      expect(text).not.toContain("7.25");
    }
    expect((await stack.destroy()).error).toBeUndefined();
  },
  TIMEOUT_MS,
);
