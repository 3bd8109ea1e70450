/**
 * Pod and ServerlessEndpoint args, generated (fast-check, seeded): every invalid one fails in
 * the provider's `check()` with a failure naming the property and sends no request; every valid
 * one (hostile strings included) is created by the emulator and reads back unchanged; no input
 * makes a provider or the emulator throw anything but a clear, named failure.
 */
import fc from "fast-check";
import { startRig, type Rig } from "../../tools/faults";
import { ENDPOINT_MUTATIONS, hostile, names, POD_MUTATIONS, validEndpointArgs, validPodArgs } from "../helpers/arbitraries";

const SEED = 20261122;
let rig: Rig;
const tally = { invalidTried: 0, invalidRejected: 0, validTried: 0, validCreated: 0 };

beforeAll(async () => {
  rig = await startRig();
});
afterAll(async () => {
  console.log(
    `bad input: ${tally.invalidTried} invalid args tried, ${tally.invalidRejected} rejected in check() naming the property with no request; ` +
      `${tally.validTried} valid args tried, ${tally.validCreated} created and read back`,
  );
  await rig?.close();
});

const requests = () => Object.values(rig.emu.counts()).reduce((a, b) => a + b, 0);

describe.each([
  ["pod", "worker", validPodArgs, POD_MUTATIONS],
  ["endpoint", "api", validEndpointArgs, ENDPOINT_MUTATIONS],
] as const)("%s args", (kind, logicalName, valid, mutations) => {
  test("every invalid one fails in check(), naming the property, before any request", async () => {
    const provider = rig.providers[kind];
    await fc.assert(
      fc.asyncProperty(valid, fc.constantFrom(...mutations), async (args, mutation) => {
        tally.invalidTried++;
        const before = requests();
        const r = await provider.check!({}, { ...mutation.apply(args), __logicalName: logicalName });
        expect(requests()).toBe(before);
        const failures = r.failures ?? [];
        if (!names(failures, mutation.property)) {
          throw new Error(`expected a failure naming ${mutation.property}, got ${JSON.stringify(failures)}`);
        }
        for (const f of failures) expect(f.reason.length).toBeGreaterThan(10);
        tally.invalidRejected++;
      }),
      { seed: SEED, numRuns: 300 },
    );
    // And every mutation at least once, each on another valid sample.
    const samples = fc.sample(valid, { seed: SEED, numRuns: mutations.length });
    for (const [i, mutation] of mutations.entries()) {
      tally.invalidTried++;
      const r = await provider.check!({}, { ...mutation.apply(samples[i]), __logicalName: logicalName });
      expect({ property: mutation.property, named: names(r.failures ?? [], mutation.property) }).toEqual({ property: mutation.property, named: true });
      tally.invalidRejected++;
    }
  });

  test("every valid one passes check(), is created by the emulator, reads back unchanged, and is deleted", async () => {
    const provider = rig.providers[kind];
    await fc.assert(
      fc.asyncProperty(valid, async (generated) => {
        tally.validTried++;
        // The platform takes only a templateId naming one of the owner's serverless templates.
        const args = kind === "endpoint" ? { ...generated, templateId: rig.templateId } : generated;
        const checked = await provider.check!({}, { ...args, __logicalName: logicalName });
        expect(checked.failures ?? []).toEqual([]);
        const made = await provider.create(JSON.parse(JSON.stringify(checked.inputs)));
        try {
          const outs = made.outs as Record<string, any>;
          if (typeof args.name === "string") expect(outs.name).toBe(args.name);
          if (kind === "pod") {
            expect(outs.image).toBe(args.image);
            if (args.args !== undefined) expect(outs.args).toBe(args.args);
            for (const [k, v] of Object.entries((args.env as Record<string, string>) ?? {})) expect(outs.env[k]).toBe(v);
            const live = rig.emu.state().pods.find((p) => p.id === made.id)!;
            expect(live.name).toBe(outs.name);
            expect(live.env).toEqual(outs.env);
          } else {
            expect(outs.templateId).toBe(args.templateId);
            const live = (rig.emu.state().endpoints as { id: string; name: string }[]).find((e) => e.id === made.id)!;
            expect(live.name).toBe(outs.name);
          }
          tally.validCreated++;
        } finally {
          await provider.delete!(made.id, made.outs);
        }
      }),
      { seed: SEED, numRuns: kind === "pod" ? 40 : 30 },
    );
    expect(rig.emu.state().pods.filter((p) => p.status !== "TERMINATED")).toEqual([]);
    expect(rig.emu.state().endpoints).toEqual([]);
  });
});

test("hostile strings in name, image and env survive a check-create-read-update round trip", async () => {
  const p = rig.providers.pod;
  await fc.assert(
    fc.asyncProperty(hostile(1), hostile(1), hostile(), hostile(1), async (name, image, value, key) => {
      fc.pre(key !== "COMPUTEPLATFORM_POD_ID");
      const first = await p.check!({}, { name, image, gpu: { id: rig.gpuId }, env: { [key]: value }, __logicalName: "h" });
      expect(first.failures ?? []).toEqual([]);
      const made = await p.create(first.inputs);
      try {
        const read = await p.read!(made.id, made.outs);
        expect(read.props).toMatchObject({ name, image });
        expect(read.props!.env[key]).toBe(value);
        // An update with the same hostile values plus one more key: nothing lost, no diff afterwards.
        const next = await p.check!(first.inputs, { name, image, gpu: { id: rig.gpuId }, env: { [key]: value, EXTRA: `${value}!` }, __logicalName: "h" });
        const updated = await p.update!(made.id, read.props, next.inputs);
        expect(updated.outs!.env[key]).toBe(value);
        expect(updated.outs!.env.EXTRA).toBe(`${value}!`);
        expect((await p.diff!(made.id, updated.outs, next.inputs)).changes).toBe(false);
      } finally {
        await p.delete!(made.id, made.outs);
      }
    }),
    { seed: SEED, numRuns: 15 },
  );
});

test("an env key the platform sets itself is refused in check(), not accepted and then shown as a diff forever", async () => {
  const before = requests();
  const checked = await rig.providers.pod.check!({}, { image: "img/app:1", gpu: { id: rig.gpuId }, env: { COMPUTEPLATFORM_POD_ID: "mine" }, __logicalName: "pid" });
  expect(checked.failures).toEqual([{ property: "env.COMPUTEPLATFORM_POD_ID", reason: expect.stringContaining("set by the platform") }]);
  expect(requests()).toBe(before);
});

test("a body over the platform's 1 MiB limit fails with a message that says so, and leaves nothing", async () => {
  const p = rig.providers.pod;
  const checked = await p.check!({}, { image: "img/app:1", gpu: { id: rig.gpuId }, env: { BLOB: "x".repeat(1_100_000) }, __logicalName: "big" });
  expect(checked.failures ?? []).toEqual([]);
  const before = rig.emu.state().pods.length;
  await expect(p.create(checked.inputs)).rejects.toThrow(/exceeds 1048576 bytes|too large/i);
  expect(rig.emu.state().pods.length).toBe(before);
});
