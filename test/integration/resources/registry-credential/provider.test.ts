/**
 * The RegistryCredential provider's methods, called directly, against the emulator over real
 * HTTP: the secrets reach the platform once and appear in no answer, request log entry or
 * error; a refresh keeps them from state and sees deletion and renaming done outside; delete
 * waits (on a fake clock) for the pods and templates that use the credential.
 */
import { inspect } from "node:util";
import { ComputePlatform } from "../../../../src/client";
import { type Emulator, startEmulator } from "../../../../src/emulator";
import { LOGICAL_NAME_KEY } from "../../../../src/resources/lifecycle/owner";
import { TOGETHER_MS } from "../../../../src/resources/lifecycle/shared-reads";
import { RegistryCredentialProvider } from "../../../../src/resources/registry-credential/provider";
import { type RegistryCredentialOutputs } from "../../../../src/resources/registry-credential/schema";
import { FakeClock } from "../../../helpers/fake-clock";

const QUOTAS = { minute: 100_000, hour: 1_000_000, day: 10_000_000 };
const PASSWORD = "reg-sentinel-pw-7c1e93a0";
const USERNAME = "reg-sentinel-user-5b2d";

let emu: Emulator;
let client: ComputePlatform;
const logLines: string[] = [];

beforeAll(async () => {
  emu = await startEmulator({ port: 0, quotas: QUOTAS, timings: { provisioningMs: 10, startingMs: 10, drainMs: 10 } });
  client = new ComputePlatform({
    apiKey: emu.apiKey,
    apiUrl: emu.url,
    pacing: false,
    maxRetries: 1,
    logger: { debug: (l: string) => logLines.push(l) },
  } as any);
});

afterAll(async () => {
  await client?.close();
  await emu?.close();
});

function provider(over: ConstructorParameters<typeof RegistryCredentialProvider>[0] = {}) {
  return new RegistryCredentialProvider({ client: () => client, clock: new FakeClock(), pollIntervalMs: 1000, ...over });
}

async function createCredential(p: RegistryCredentialProvider, news: Record<string, unknown>) {
  const checked = await p.check({}, { [LOGICAL_NAME_KEY]: "ghcr", username: USERNAME, password: PASSWORD, ...news });
  expect(checked.failures ?? []).toEqual([]);
  const created = await p.create(checked.inputs!);
  return { inputs: checked.inputs!, id: created.id, outs: created.outs as RegistryCredentialOutputs };
}

const podUsing = (registry: string, name: string) =>
  client.pods.create({ name, image: "ghcr.io/acme/private:1", cpu: { id: "cpu3c", vcpuCount: 2 }, registry });

test("lifecycle: create, refresh keeps the secrets, outside rename and deletion are seen; the secrets reach no answer", async () => {
  const clock = new FakeClock();
  const p = provider({ clock });
  const { inputs, id, outs } = await createCredential(p, {});
  expect(inputs.name).toMatch(/^ghcr-[0-9a-f]{7}$/);
  expect(outs).toEqual({ id, name: inputs.name, username: USERNAME, password: PASSWORD, deleteWaitSeconds: 120 });
  expect(await client.registries.get(id)).toEqual({ id, name: inputs.name });

  // Refresh: the platform returns id and name only; the secrets come from state.
  expect(await p.read(id, outs)).toEqual({ id, props: outs });

  // Renamed outside (a fresh credential of another name stands in: the platform has no update):
  // refresh reports the name the platform has, so the next diff replaces.
  const renamed = await client.registries.create({ name: "renamed-outside", username: "u", password: "p" });
  const readRenamed = await p.read(renamed.id, { ...outs, id: renamed.id });
  expect(readRenamed.props).toMatchObject({ name: "renamed-outside", password: PASSWORD });
  await client.registries.delete(renamed.id);

  // Deleted outside: the next refresh reports it gone (the reads of one refresh, those within
  // TOGETHER_MS of each other, may share a list up to that old).
  await client.registries.delete(id);
  clock.current += TOGETHER_MS + 1;
  expect(await p.read(id, outs)).toEqual({});
  // Deleting what is gone is success.
  await p.delete(id, outs);

  const everything = [JSON.stringify(emu.requestLog()), JSON.stringify(emu.state()), logLines.join("\n"), inspect(client, { depth: 8 })].join("\n");
  expect(everything).not.toContain(PASSWORD);
  expect(everything).not.toContain(USERNAME);
});

test("a pod names the credential; delete waits within the bound, then fails naming the pod and the template", async () => {
  const clock = new FakeClock();
  const p = provider({ clock });
  const { id, outs } = await createCredential(p, { name: "held", deleteWaitSeconds: 3 });
  const pod = await podUsing(id, "private-pod-outside");
  const template = await client.templates.create({ name: "private-template", image: "ghcr.io/acme/private:1", registry: id });
  const deletes = emu.counts().deleteRegistry ?? 0;

  const err: Error = await p.delete(id, outs).then(
    () => {
      throw new Error("delete should have failed");
    },
    (e) => e,
  );
  expect(err.message).toMatch(/^registry credential \S+ \("held"\) is still used by pod /);
  expect(err.message).toContain(`${pod.id} ("private-pod-outside", `);
  expect(err.message).toContain(`and template ${template.id} ("private-template")`);
  expect(err.message).toContain("after waiting 3 s");
  expect(err.message).not.toContain(PASSWORD);
  expect(clock.sleeps).toEqual([1000, 1000, 1000]);
  expect(emu.counts().deleteRegistry).toBe(deletes + 1);
  expect((await client.registries.list()).some((r) => r.id === id)).toBe(true);

  // The template goes; the pod is terminated while delete waits: then the DELETE works.
  await client.templates.delete(template.id);
  const clock2 = new FakeClock();
  const onSleep = clock2.sleep.bind(clock2);
  clock2.sleep = async (ms, signal) => {
    await onSleep(ms, signal);
    if (clock2.sleeps.length === 2) await client.pods.delete(pod.id);
  };
  await provider({ clock: clock2, pollIntervalMs: 5000 }).delete(id, { ...outs, deleteWaitSeconds: 60 });
  expect(clock2.sleeps).toEqual([5000, 5000]);
  await expect(client.registries.get(id)).rejects.toThrow(/404|not found/i);
});

test("a pod moves to a new credential in place; the old one then deletes at once", async () => {
  const p = provider();
  const old = await createCredential(p, { name: "rotating" });
  const pod = await podUsing(old.id, "follower");
  // The replacement: a new credential of the same name first ...
  const fresh = await createCredential(p, { name: "rotating", password: `${PASSWORD}-2` });
  expect(fresh.id).not.toBe(old.id);
  // ... the pod follows by an update of `registry` ...
  const moved = await client.pods.update(pod.id, { registry: fresh.id });
  expect(moved.id).toBe(pod.id);
  expect(moved.registry).toBe(fresh.id);
  // ... and nothing holds the old one any more.
  const clock = new FakeClock();
  await provider({ clock }).delete(old.id, old.outs);
  expect(clock.sleeps).toEqual([]);
  await client.pods.delete(pod.id);
  await p.delete(fresh.id, fresh.outs);
});

test("create failures carry no secret", async () => {
  const p = provider();
  const checked = await p.check({}, { [LOGICAL_NAME_KEY]: "x", name: "x", username: USERNAME, password: PASSWORD });
  const broken = new ComputePlatform({ apiKey: "cp_wrong_key_for_this_test_000", apiUrl: emu.url, pacing: false, maxRetries: 0 });
  try {
    const err: Error = await new RegistryCredentialProvider({ client: () => broken }).create(checked.inputs!).then(
      () => {
        throw new Error("create should have failed");
      },
      (e) => e,
    );
    const surfaces = [err.message, err.stack ?? "", inspect(err, { depth: 8 }), JSON.stringify(err)].join("\n");
    expect(surfaces).not.toContain(PASSWORD);
    expect(surfaces).not.toContain(USERNAME);
  } finally {
    await broken.close();
  }
});
