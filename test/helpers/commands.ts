// Commands of engine tests that start a plugin process per command, as each `pulumi` command
// does (test/engine/budget.test.ts, test/load/account-budget-fleet.test.ts): the stacks, their
// programs' registrations and URNs, and a pod of one L40S.
import { Pod, type PodArgs } from "../../src/resources/pod";
import { captureProgram, EngineStack, PROJECT, type ProviderPlugin, type Registration, SECRET_KEYS, urnOf } from "../../tools/engine";
import { type EngineRig, startPlugin } from "../../tools/engine/rig";

/** $0.86/h on SECURE. */
export const L40S = "NVIDIA L40S";

/** A pod `name` of one L40S unless `args` say otherwise. */
export const pod = (name: string, args: Partial<PodArgs> = {}) => new Pod(name, { image: "trainer:1", gpu: { id: L40S, count: 1 }, ...args });

/** Commands on `rig`'s emulator (jest: its plugins are stopped after the file's last test). */
export function commandsOn(rig: EngineRig) {
  const plugins: ProviderPlugin[] = [];
  afterAll(async () => {
    await Promise.all(plugins.map((p) => p.stop()));
  });
  return {
    /** A new plugin process (one `pulumi` command) with `extra` stack config; its log lines collected. */
    async command(stack: EngineStack | string, extra: Record<string, string> = {}): Promise<{ stack: EngineStack; log: () => string }> {
      const plugin = await startPlugin({ ...rig.config, ...extra });
      plugins.push(plugin);
      const next = typeof stack === "string" ? new EngineStack(plugin, { project: PROJECT, stack }) : stack.carriedTo(plugin);
      return { stack: next, log: () => plugin.transcript() };
    },
    regs: (stack: EngineStack, program: () => void, preview = false): Promise<Registration[]> =>
      captureProgram(program, { project: PROJECT, stack: stack.stack, preview, config: rig.config, secretKeys: SECRET_KEYS }),
    urn: (stack: EngineStack, kind: string, name: string) => urnOf(stack.stack, PROJECT, `pulumi-nodejs:dynamic/computeplatform:${kind}`, name),
  };
}
