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
  expect(err.message).toContain("Terminate the pod(s) or delete the template(s), or set their registry to another credential");
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

/** The requests the emulator answered since `from`, as `METHOD path`. */
const requestsSince = (from: number) =>
  emu
    .requestLog()
    .slice(from)
    .map((e) => `${e.method} ${e.path}`);

test("diff sends nothing: a new secret or name replaces, the new credential first; the delete wait alone changes state; each step's line says so", async () => {
  const lines: string[] = [];
  const p = provider({ print: (l) => lines.push(l) });
  const { inputs, id, outs } = await createCredential(p, { name: "diffed" });
  const from = emu.requestLog().length;

  expect(await p.diff(id, outs, inputs)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  expect(lines).toEqual([]);

  expect(await p.diff(id, outs, { ...inputs, password: `${PASSWORD}-new` })).toEqual({ changes: true, replaces: ["password"], deleteBeforeReplace: false });
  expect(await p.diff(id, outs, { ...inputs, name: "diffed-2", username: "other" })).toEqual({
    changes: true,
    replaces: ["name", "username"],
    deleteBeforeReplace: false,
  });
  expect(await p.diff(id, outs, { ...inputs, deleteWaitSeconds: 5 })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  expect(lines).toEqual([
    'RegistryCredential "ghcr": replaced (password): a new one is made, then the old deleted; lost: the old credential (what names it through this resource\'s id follows the new one)',
    'RegistryCredential "ghcr": replaced (name, username): a new one is made, then the old deleted; lost: the old credential (what names it through this resource\'s id follows the new one)',
    'RegistryCredential "ghcr": no request (recorded in state only: deleteWaitSeconds)',
  ]);
  expect(lines.join("\n")).not.toContain(PASSWORD);
  expect(requestsSince(from)).toEqual([]);
  await p.delete(id, outs);
});

test("update: the delete wait is kept in state (back to 120 s when left out), and nothing is sent", async () => {
  const p = provider();
  const { inputs, id, outs } = await createCredential(p, { name: "waiting", deleteWaitSeconds: 30 });
  const from = emu.requestLog().length;
  expect(await p.update(id, outs, { ...inputs, deleteWaitSeconds: 7 })).toEqual({ outs: { ...outs, id, deleteWaitSeconds: 7 } });
  expect(await p.update(id, outs, { ...inputs, deleteWaitSeconds: undefined })).toEqual({ outs: { ...outs, id, deleteWaitSeconds: 120 } });
  expect(requestsSince(from)).toEqual([]);
  await p.delete(id, outs);
});

test("adopt: an existing credential is taken as it is, nothing sent; another name, or no such credential, is refused at check naming adopt", async () => {
  const existing = await client.registries.create({ name: "by-hand", username: "u", password: "p" });
  const p = provider();
  const refusal = async (news: Record<string, unknown>) =>
    (await p.check({}, { [LOGICAL_NAME_KEY]: "adopter", username: USERNAME, password: PASSWORD, ...news })).failures;

  expect(await refusal({ name: "by-hand", adopt: "no-such-registry" })).toEqual([
    { property: "adopt", reason: "adopt: there is no registry credential with ID no-such-registry" },
  ]);
  expect(await refusal({ name: "another-name", adopt: existing.id })).toEqual([
    {
      property: "adopt",
      reason:
        `adopt: registry credential ${existing.id} differs from the declaration in name, which cannot change on an existing registry credential; ` +
        'declare it as the registry credential has it (name: "by-hand"), or remove adopt to create a new credential as declared',
    },
  ]);

  // The note check leaves in the plugin's log (outside an engine, Pulumi's log writes it to the console).
  const log = jest.spyOn(console, "log").mockImplementation(() => {});
  let checked: Awaited<ReturnType<RegistryCredentialProvider["check"]>>;
  try {
    checked = await p.check({}, { [LOGICAL_NAME_KEY]: "adopter", name: "by-hand", username: USERNAME, password: PASSWORD, adopt: existing.id });
    expect(log.mock.calls.map((c) => String(c[0]))).toEqual([
      `info: [runtime] RegistryCredential "adopter" adopts registry credential ${existing.id}: nothing is created; the first up changes nothing on it; ` +
        "the platform never returns a credential's username and password, so state records the program's, unverified " +
        "(a change of either, with adopt removed, makes a new credential with them)",
    ]);
  } finally {
    log.mockRestore();
  }
  expect(checked.failures ?? []).toEqual([]);
  const from = emu.requestLog().length;
  const adopted = await p.create(checked.inputs!);
  expect(adopted).toEqual({
    id: existing.id,
    outs: { id: existing.id, name: "by-hand", username: USERNAME, password: PASSWORD, deleteWaitSeconds: 120 },
  });
  expect(requestsSince(from)).toEqual([`GET /v2/registries/${existing.id}`]);
  // A replacement while adopt names it would adopt it again, then delete it: refused at preview.
  await expect(p.diff(existing.id, adopted.outs!, { ...checked.inputs!, password: "rotated" })).rejects.toThrow(
    `RegistryCredential by-hand: password cannot change on an adopted object while adopt is set (a new one would adopt ${existing.id} again`,
  );
  await p.delete(existing.id, adopted.outs!);
  expect((await client.registries.list()).some((r) => r.id === existing.id)).toBe(false);
});

/** A fake clock that runs `meanwhile` in its first sleep: the pause before a create's look again. */
function clockDoing(meanwhile: () => Promise<unknown>): FakeClock {
  const clock = new FakeClock();
  const sleep = clock.sleep.bind(clock);
  clock.sleep = async (ms, signal) => {
    await sleep(ms, signal);
    if (clock.sleeps.length === 1) await meanwhile();
  };
  return clock;
}

/**
 * Makes the POST's answer lost and the client's own look-up fail (its list, twice), so the
 * provider looks again itself. A create made first in the same instant lists the credentials
 * there before both (one command's creates share that list): the faults hit only what follows.
 */
async function loseNextAnswer(p: RegistryCredentialProvider) {
  const first = await createCredential(p, { name: `first-${Math.random().toString(16).slice(2, 8)}` });
  emu.setFaults({
    aimed: [
      { method: "POST", path: "/v2/registries", fault: "drop" },
      { method: "GET", path: "/v2/registries", fault: "5xx", times: 2 },
    ],
  });
  return first;
}

test("a create whose answer is lost is found again: the credential of its name not seen before, not one of another name made meanwhile", async () => {
  let other: { id: string } | undefined;
  const p = provider({ clock: clockDoing(async () => (other = await client.registries.create({ name: "lost-answer-other", username: "u", password: "p" }))) });
  const first = await loseNextAnswer(p);
  try {
    const { id, outs } = await createCredential(p, { name: "lost-answer" });
    expect(other).toBeDefined();
    expect((await client.registries.list()).filter((r) => r.name === "lost-answer")).toEqual([{ id, name: "lost-answer" }]);
    expect(outs).toEqual({ id, name: "lost-answer", username: USERNAME, password: PASSWORD, deleteWaitSeconds: 120 });
    await p.delete(id, outs);
  } finally {
    emu.setFaults({});
    if (other) await client.registries.delete(other.id);
    await p.delete(first.id, first.outs);
  }
});

test("a lost answer and another credential of its name made meanwhile: the create fails naming it and what to do, without its secrets", async () => {
  let other: { id: string } | undefined;
  const p = provider({ clock: clockDoing(async () => (other = await client.registries.create({ name: "unknowable", username: "u", password: "p" }))) });
  const checked = await p.check({}, { [LOGICAL_NAME_KEY]: "ghcr", name: "unknowable", username: USERNAME, password: PASSWORD });
  const first = await loseNextAnswer(p);
  try {
    const err: Error = await p.create(checked.inputs!).then(
      () => {
        throw new Error("create should have failed");
      },
      (e) => e,
    );
    expect(err.message).toMatch(
      /^creating registry credential "unknowable" failed and whether the registry credential exists is unknown \(2 registry credentials that match it appeared since it began /,
    );
    expect(err.message).toContain('look for a registry credential named "unknowable" and delete it.');
    expect(err.message).not.toContain(PASSWORD);
  } finally {
    emu.setFaults({});
    for (const r of await client.registries.list()) if (r.name === "unknowable") await client.registries.delete(r.id);
    await p.delete(first.id, first.outs);
  }
  expect(other).toBeDefined();
});

test("delete: the line of what is lost, and a refresh in the same command sees the credential gone", async () => {
  const lines: string[] = [];
  const clock = new FakeClock();
  const p = provider({ clock, print: (l) => lines.push(l) });
  const { id, outs } = await createCredential(p, { name: "short-lived" });
  expect(await p.read(id, outs)).toEqual({ id, props: outs });
  await p.delete(id, outs);
  expect(lines).toEqual([`RegistryCredential ${id}: deleted; lost: the credential`]);
  // Same instant as the read above: the list it shared is not taken for the truth after the delete.
  expect(await p.read(id, outs)).toEqual({});
});
