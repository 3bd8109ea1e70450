// One rule for arguments a kind does not have, through Pulumi's own dynamic-provider plugin:
// a misspelled argument on each of the five kinds, declared through its class, fails preview
// at Check naming it and the nearest argument the kind has, and the emulator sees no request
// of any kind (no catalog read for the cost line either). A misspelled password stays secret.
// The plugin loads the package from dist/: run `npm run build` before this file alone.
import { NetworkVolume } from "../../src/resources/network-volume";
import { Pod } from "../../src/resources/pod";
import { RegistryCredential } from "../../src/resources/registry-credential";
import { ServerlessEndpoint } from "../../src/resources/serverless-endpoint";
import { Template } from "../../src/resources/template";
import { captureProgram, EngineStack, PROJECT, SECRET_KEYS } from "../../tools/engine";
import { engineRigForFile } from "../../tools/engine/rig";

const KEY = "cp_sentinel_typo_5d1e08a2c7";
const PASSWORD = "sentinel-typo-pw-3b9f1e";

const rig = engineRigForFile(KEY);

// Each program as a user writes it in JavaScript (or with a cast): the class takes the typo.
const cases: [string, () => void, string, string][] = [
  ["Pod", () => void new Pod("trainer", { imagee: "trainer:1", image: "trainer:1", gpu: { id: "NVIDIA L40S" } } as any), "imagee", "image"],
  ["NetworkVolume", () => void new NetworkVolume("data", { size: 20, sizee: 40, dataCenter: "EU-RO-1" } as any), "sizee", "size"],
  [
    "RegistryCredential",
    () => void new RegistryCredential("ghcr", { username: "robot", password: PASSWORD, passwrd: PASSWORD } as any),
    "passwrd",
    "password",
  ],
  ["Template", () => void new Template("worker", { image: "worker:1", serverles: true } as any), "serverles", "serverless"],
  [
    "ServerlessEndpoint",
    () => void new ServerlessEndpoint("api", { gpuIds: "ADA_24", templateId: "tpl-1", workersMax: 2, wrokersMin: 1 } as any),
    "wrokersMin",
    "workersMin",
  ],
];

test.each(cases)("a misspelled %s argument fails preview naming it and the nearest one, with no request", async (kind, declare, typo, near) => {
  const before = rig.emu.requestLog().length;
  const regs = await captureProgram(declare, { project: PROJECT, stack: "dev", preview: true, config: rig.config, secretKeys: SECRET_KEYS });
  // Through the class: the typo reaches the engine instead of being dropped.
  const reg = regs.find((r) => r.type.endsWith(`:${kind}`))!;
  expect(Object.keys(reg.inputs)).toContain(typo);
  const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "dev" });
  const preview = await stack.preview(regs);
  expect(preview.failures?.failures).toEqual([{ property: typo, reason: `${typo} is not a ${kind} argument; did you mean ${near}?` }]);
  expect(preview.steps).toEqual([]);
  expect(stack.calls.filter((c) => !c.startsWith("Check "))).toEqual([]);
  expect(rig.emu.requestLog().slice(before)).toEqual([]);
  expect(rig.plugin.transcript()).not.toContain(PASSWORD);
});
