/**
 * The Template provider's methods, called directly, against the emulator over real HTTP.
 * The delete wait runs on a fake clock: "wait up to N seconds" takes microseconds, and the
 * clock's sleep lets a test delete the endpoint that uses the template in the middle of it.
 */
import { AmbiguousRequestError, BadRequestError, ComputePlatform, ConflictError, ConnectionError, InternalServerError } from "../../../../src/client";
import { LOGICAL_NAME_KEY } from "../../../../src/resources/lifecycle/owner";
import { TemplateProvider } from "../../../../src/resources/template/provider";
import { type TemplateInputs, type TemplateOutputs } from "../../../../src/resources/template/schema";
import { FakeClock } from "../../../helpers/fake-clock";
import { providerRigForFile } from "../../../../tools/engine/rig";

const rig = providerRigForFile();

/** A clock whose sleeps move time on at once; `onSleep` runs inside each sleep. */
class HookedClock extends FakeClock {
  constructor(private readonly onSleep?: (n: number) => Promise<void> | void) {
    super();
  }
  override async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    await super.sleep(ms, signal);
    await this.onSleep?.(this.sleeps.length);
  }
}

function provider(over: ConstructorParameters<typeof TemplateProvider>[0] = {}) {
  return new TemplateProvider({ client: () => rig.client, clock: new HookedClock(), pollIntervalMs: 1000, ...over });
}

/** Create: the id and the outputs (always there after a create that resolved). */
async function made(p: TemplateProvider, inputs: TemplateInputs): Promise<{ id: string; outs: TemplateOutputs }> {
  const r = await p.create(inputs);
  return { id: r.id, outs: r.outs! };
}

async function checked(p: TemplateProvider, news: Record<string, unknown>, olds: Record<string, unknown> = {}): Promise<TemplateInputs> {
  const result = await p.check(olds, { [LOGICAL_NAME_KEY]: "worker", ...news });
  expect(result.failures ?? []).toEqual([]);
  return result.inputs!;
}

test("create with the defaults written out, read, PATCH only what changed, delete", async () => {
  const p = provider();
  const inputs = await checked(p, { image: "worker:1", serverless: true, env: { A: "1" }, mounts: { persistent: { size: 20, path: "/w" } } });
  const { id, outs } = await made(p, inputs);
  expect(outs).toEqual({
    id, name: inputs.name, image: "worker:1", args: "", disk: 20, mounts: { persistent: { size: 20, path: "/w" } }, ports: [], env: { A: "1" },
    registry: null, serverless: true, public: false, category: "NVIDIA", deleteWaitSeconds: 120,
  });
  expect(inputs.name).toMatch(/^worker-[0-9a-f]{7}$/);
  expect(await p.read(id, outs)).toEqual({ id, props: outs });

  const news = await checked(p, { name: inputs.name, image: "worker:2", serverless: true, mounts: { persistent: { size: 30, path: "/w" } }, category: "AMD", deleteWaitSeconds: 5 }, inputs as any);
  expect(await p.diff(id, outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  const from = rig.emu.requestLog().length;
  const updated = (await p.update(id, outs, news)).outs!;
  const patches = rig.emu.requestLog().slice(from);
  expect(patches.map((e) => [e.method, e.op, e.status])).toEqual([["PATCH", "updateTemplate", 200]]);
  expect(updated).toMatchObject({ id, image: "worker:2", env: {}, mounts: { persistent: { size: 30, path: "/w" } }, category: "AMD", deleteWaitSeconds: 5 });
  expect(await rig.client.templates.get(id)).toMatchObject({ image: "worker:2", env: {}, category: "AMD" });

  // Only the local wait setting changed: no request.
  const n = rig.emu.requestLog().length;
  expect((await p.update(id, updated, { ...news, deleteWaitSeconds: 9 })).outs).toMatchObject({ deleteWaitSeconds: 9 });
  expect(rig.emu.requestLog().length).toBe(n);

  // Dropping the mount replaces: PATCH could not remove it.
  const dropped = await checked(p, { name: inputs.name, image: "worker:2", serverless: true, category: "AMD" }, news as any);
  expect((await p.diff(id, updated, dropped)).replaces).toEqual(["mounts"]);

  await p.delete(id, updated);
  expect(await p.read(id, updated)).toEqual({});
  // Gone already: delete is done.
  await expect(p.delete(id, updated)).resolves.toBeUndefined();
});

test("delete waits while an endpoint uses the template, deletes once it is gone", async () => {
  const p0 = provider();
  const { id, outs } = await made(p0, await checked(p0, { image: "worker:1", serverless: true }));
  const ep = await rig.client.endpoints.save({ name: "user", gpuIds: "AMPERE_24", templateId: id, workersMin: 0, workersMax: 0 });
  const clock = new HookedClock(async (n) => {
    if (n === 2) await rig.client.endpoints.delete(ep.id);
  });
  const p = provider({ clock });
  await p.delete(id, outs);
  expect(clock.sleeps).toEqual([1000, 1000]);
  await expect(rig.client.templates.get(id)).rejects.toMatchObject({ status: 404 });
  const deletes = rig.emu.requestLog().filter((e) => e.op === "deleteTemplate" && e.path.endsWith(id));
  expect(deletes.map((e) => e.status)).toEqual([409, 204]);
});

test("delete fails after deleteWaitSeconds naming the endpoint that still uses it; the template stays", async () => {
  const p0 = provider();
  const { id, outs } = await made(p0, await checked(p0, { name: "held", image: "worker:1", serverless: true, deleteWaitSeconds: 3 }));
  const ep = await rig.client.endpoints.save({ name: "holder", gpuIds: "AMPERE_24", templateId: id, workersMin: 0, workersMax: 0 });
  const clock = new HookedClock();
  const err = await provider({ clock })
    .delete(id, outs)
    .then(() => undefined, (e: Error) => e);
  expect(err?.message).toBe(
    `template ${id} ("held") is still used by endpoint ${ep.id} ("holder") after waiting 3 s. Delete the endpoint(s) or pod(s), ` +
      "or point them at another template, then run the deletion again (deleteWaitSeconds sets how long delete waits).",
  );
  expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(3000);
  expect(await rig.client.templates.get(id)).toMatchObject({ id });
  await rig.client.endpoints.delete(ep.id);
  await provider().delete(id, outs);
});

test("making a template an endpoint uses a pod template is refused by the platform, the template unchanged", async () => {
  const p = provider();
  const inputs = await checked(p, { image: "worker:1", serverless: true });
  const { id, outs } = await made(p, inputs);
  const ep = await rig.client.endpoints.save({ name: "keeps", gpuIds: "AMPERE_24", templateId: id, workersMin: 0, workersMax: 0 });
  await expect(p.update(id, outs, { ...inputs, serverless: false })).rejects.toMatchObject({ status: 400, message: expect.stringContaining("must stay serverless") });
  expect((await rig.client.templates.get(id)).serverless).toBe(true);
  await rig.client.endpoints.delete(ep.id);
  await p.delete(id, outs);
});

describe("create once", () => {
  /** The real rig.client, whose template create makes the template and then answers `answer`. */
  function lossy(answer: (made: Awaited<ReturnType<ComputePlatform["templates"]["create"]>>) => Promise<never> | unknown) {
    const templates = Object.create(rig.client.templates) as ComputePlatform["templates"];
    templates.create = async (params, opts) => answer(await rig.client.templates.create(params, opts)) as any;
    return { templates, endpoints: rig.client.endpoints, pods: rig.client.pods } as unknown as ComputePlatform;
  }

  test("an ambiguous create whose look-up failed: the template made is found, none made twice", async () => {
    const lost = lossy(async (made) => {
      throw new AmbiguousRequestError("template", made.name, new ConnectionError("socket hang up", { method: "POST", url: "/v2/templates", requestSent: true }), new Error("list failed"));
    });
    const p = provider({ client: () => lost });
    const inputs = await checked(p, { name: "amb-tpl", image: "amb:1", serverless: true });
    const { id } = await made(p, inputs);
    const named = (await rig.client.templates.list()).filter((t) => t.name === "amb-tpl");
    expect(named.map((t) => t.id)).toEqual([id]);
  });

  test("a replacement whose create came back as the template it replaces looks again without that one", async () => {
    const first = provider();
    const scope = { name: "same-name", image: "same:1", serverless: true, __project: "p", __stack: "s" };
    const oldInputs = await checked(first, { ...scope, mounts: { persistent: { size: 10, path: "/w" } } });
    const old = await made(first, oldInputs);
    let madeId = "";
    // The rig.client's look-up by name, image and kind found the old template instead of the new one.
    const p = provider({
      client: () =>
        lossy(async (t) => {
          madeId = t.id;
          return rig.client.templates.get(old.id);
        }),
    });
    const news = await checked(p, scope, oldInputs as any);
    expect((await p.diff(old.id, old.outs, news)).replaces).toEqual(["mounts"]);
    const { id } = await made(p, await checked(p, scope));
    expect(id).toBe(madeId);
    expect(id).not.toBe(old.id);
  });
});

/** The requests the emulator answered since `from`, as `METHOD path`. */
const requestsSince = (from: number) =>
  rig.emu
    .requestLog()
    .slice(from)
    .map((e) => `${e.method} ${e.path}`);

test("diff sends nothing and prints each step's line: an image change of an endpoint's template rolls its users, the delete wait is state, a dropped mount replaces", async () => {
  const lines: string[] = [];
  const p = provider({ print: (l) => lines.push(l) });
  const inputs = await checked(p, { name: "lined", image: "worker:1", serverless: true, mounts: { persistent: { size: 10, path: "/w" } } });
  const { id, outs } = await made(p, inputs);
  const from = rig.emu.requestLog().length;
  expect(await p.diff(id, outs, inputs)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  expect(lines).toEqual([]);
  expect(await p.diff(id, outs, { ...inputs, image: "worker:2" })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  expect(await p.diff(id, outs, { ...inputs, deleteWaitSeconds: 4 })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  expect(await p.diff(id, outs, { ...inputs, mounts: {} })).toEqual({ changes: true, replaces: ["mounts"], deleteBeforeReplace: false });
  expect(lines).toEqual([
    'Template "worker": updated in place (image); every endpoint running it rolls its workers (image)',
    'Template "worker": no request (recorded in state only: deleteWaitSeconds)',
    'Template "worker": replaced (mounts): a new one is made, then the old deleted; lost: its id (what names it through this resource\'s id follows the new one)',
  ]);
  expect(requestsSince(from)).toEqual([]);
  await p.delete(id, outs);
});

test("update of a template deleted outside fails naming it and what to run; a refresh in the same command then sees it gone", async () => {
  const p = provider();
  const inputs = await checked(p, { name: "vanishing", image: "worker:1" });
  const { id, outs } = await made(p, inputs);
  expect(await p.read(id, outs)).toEqual({ id, props: outs });
  await rig.client.templates.delete(id);
  await expect(p.update(id, outs, { ...inputs, image: "worker:2" })).rejects.toThrow(
    `Template "vanishing" (${id}) no longer exists on the platform; run \`pulumi refresh\` to forget it, then \`pulumi up\` to make a new one`,
  );
  expect(await p.read(id, outs)).toEqual({});
});

test("update: a change one PATCH sends is what a refresh in the same command reads", async () => {
  const p = provider();
  const inputs = await checked(p, { name: "patched", image: "worker:1" });
  const { id, outs } = await made(p, inputs);
  expect(await p.read(id, outs)).toEqual({ id, props: outs });
  const from = rig.emu.requestLog().length;
  const updated = (await p.update(id, outs, { ...inputs, image: "worker:2" })).outs!;
  expect(requestsSince(from)).toEqual([`PATCH /v2/templates/${id}`]);
  expect(updated).toEqual({ ...outs, image: "worker:2" });
  expect(await p.read(id, outs)).toEqual({ id, props: updated });
  await p.delete(id, updated);
});

test("adopt: an existing template is taken and changed by one PATCH; a dropped mount is refused at check naming what cannot change", async () => {
  const existing = await rig.client.templates.create({ name: "by-hand", image: "worker:1", mounts: { persistent: { size: 10, path: "/w" } } });
  const p = provider();
  const refusal = async (news: Record<string, unknown>) => (await p.check({}, { [LOGICAL_NAME_KEY]: "adopter", ...news })).failures;
  expect(await refusal({ name: "by-hand", image: "worker:1", adopt: existing.id })).toEqual([
    {
      property: "adopt",
      reason:
        `adopt: template ${existing.id} differs from the declaration in mounts, which cannot change on an existing template; ` +
        'declare it as the template has it (mounts: {"persistent":{"size":10,"path":"/w"}}), or remove adopt to create a new template as declared',
    },
  ]);
  expect(await refusal({ name: "by-hand", image: "worker:1", adopt: "no-such-template" })).toEqual([
    { property: "adopt", reason: "adopt: there is no template with ID no-such-template" },
  ]);
  const inputs = await checked(p, { name: "by-hand", image: "worker:2", mounts: { persistent: { size: 10, path: "/w" } }, adopt: existing.id });
  const from = rig.emu.requestLog().length;
  const adopted = await p.create(inputs);
  expect(adopted.id).toBe(existing.id);
  expect(adopted.outs).toMatchObject({ id: existing.id, name: "by-hand", image: "worker:2", mounts: { persistent: { size: 10, path: "/w" } } });
  expect(requestsSince(from)).toEqual([`GET /v2/templates/${existing.id}`, `PATCH /v2/templates/${existing.id}`]);
  await p.delete(existing.id, adopted.outs!);
});

/**
 * Makes the POST's answer lost and the client's own look-up fail (its list, twice), so the
 * provider looks again itself, after a sleep of `clock` that runs `meanwhile`. A create made
 * first in the same instant lists the templates there before both (one command's creates share
 * that list): the faults hit only what follows.
 */
async function loseNextAnswer(meanwhile: () => Promise<unknown>) {
  const p = provider({ clock: new HookedClock(async (n) => void (n === 1 && (await meanwhile()))) });
  const first = await made(p, await checked(p, { image: "first:1" }));
  rig.emu.setFaults({
    aimed: [
      { method: "POST", path: "/v2/templates", fault: "drop" },
      { method: "GET", path: "/v2/templates", fault: "5xx", times: 2 },
    ],
  });
  return { p, first };
}

test("a create whose answer is lost is found again: the template of its name, image and kind, not one differing in either made meanwhile", async () => {
  const others: string[] = [];
  const outside = (body: { image: string; serverless: boolean }) => rig.client.templates.create({ name: "lost-answer", ...body }).then((t) => others.push(t.id));
  const { p, first } = await loseNextAnswer(async () => {
    await outside({ image: "lost:2", serverless: true });
    await outside({ image: "lost:1", serverless: false });
  });
  try {
    const { id, outs } = await made(p, await checked(p, { name: "lost-answer", image: "lost:1", serverless: true }));
    expect(others).toHaveLength(2);
    expect(others).not.toContain(id);
    expect(outs).toMatchObject({ id, name: "lost-answer", image: "lost:1", serverless: true });
    await p.delete(id, outs);
  } finally {
    rig.emu.setFaults({});
    for (const other of others) await rig.client.templates.delete(other);
    await p.delete(first.id, first.outs);
  }
});

test("a lost answer and another such template made meanwhile: the create fails naming the template and what to do", async () => {
  const { p, first } = await loseNextAnswer(() => rig.client.templates.create({ name: "unknowable", image: "u:1" }));
  try {
    await expect(p.create(await checked(p, { name: "unknowable", image: "u:1" }))).rejects.toThrow(
      /^creating template "unknowable" failed and whether the template exists is unknown \(2 templates that match it appeared since it began .*look for a template named "unknowable" and delete it\.$/,
    );
  } finally {
    rig.emu.setFaults({});
    for (const t of await rig.client.templates.list()) if (t.name === "unknowable") await rig.client.templates.delete(t.id);
    await p.delete(first.id, first.outs);
  }
});

test("delete: the line of what is lost; a state with no wait waits the default 120 s; a refresh in the same command sees it gone", async () => {
  const lines: string[] = [];
  const p0 = provider();
  const { id, outs } = await made(p0, await checked(p0, { name: "short-lived", image: "worker:1", serverless: true }));
  const ep = await rig.client.endpoints.save({ name: "holder-default", gpuIds: "AMPERE_24", templateId: id, workersMin: 0, workersMax: 0 });
  const clock = new HookedClock();
  const p = provider({ clock, pollIntervalMs: 60_000, print: (l) => lines.push(l) });
  const { deleteWaitSeconds: _unset, ...noWait } = outs;
  await expect(p.delete(id, noWait)).rejects.toThrow(/after waiting 120 s/);
  expect(clock.sleeps).toEqual([60_000, 60_000]);
  expect(lines).toEqual([]);
  await rig.client.endpoints.delete(ep.id);
  expect(await p.read(id, outs)).toEqual({ id, props: outs });
  await p.delete(id, outs);
  expect(lines).toEqual([`Template ${id}: deleted; lost: the template (it runs nothing itself)`]);
  expect(await p.read(id, outs)).toEqual({});
});

test("the contract's 400 for a template in use is waited on as the platform's 409 is", async () => {
  const p0 = provider();
  const { id, outs } = await made(p0, await checked(p0, { name: "contract-400", image: "worker:1", serverless: true }));
  const ep = await rig.client.endpoints.save({ name: "uses-template", gpuIds: "AMPERE_24", templateId: id, workersMin: 0, workersMax: 0 });
  // A platform that answers as the contract writes: 400 where the emulator answers 409.
  const templates = Object.create(rig.client.templates) as ComputePlatform["templates"];
  templates.delete = (tid, opts) =>
    rig.client.templates.delete(tid, opts).catch((e) => {
      throw e instanceof ConflictError ? new BadRequestError(e.message, { ...e, status: 400 } as never) : e;
    });
  const contract = { templates, endpoints: rig.client.endpoints, pods: rig.client.pods } as unknown as ComputePlatform;
  const clock = new HookedClock(async (n) => void (n === 1 && (await rig.client.endpoints.delete(ep.id))));
  await provider({ client: () => contract, clock }).delete(id, outs);
  expect(clock.sleeps).toEqual([1000]);
  await expect(rig.client.templates.get(id)).rejects.toMatchObject({ status: 404 });
});

test("a cancelled deployment's signal reaches every request", async () => {
  const controller = new AbortController();
  controller.abort(new Error("deployment cancelled"));
  const p = provider({ signal: controller.signal });
  const from = rig.emu.requestLog().length;
  await expect(p.read("tpl-any")).rejects.toThrow("deployment cancelled");
  await expect(p.create(await checked(provider(), { name: "never", image: "worker:1" }))).rejects.toThrow("deployment cancelled");
  expect(requestsSince(from)).toEqual([]);
});

test("a DELETE that fails for a reason other than use fails at once with the platform's error: no wait, no look at the users", async () => {
  const p0 = provider();
  const { id, outs } = await made(p0, await checked(p0, { name: "undeletable", image: "worker:1" }));
  const failure = new InternalServerError("500 Internal Server Error", { status: 500, title: "failed", detail: "try again", errors: [], method: "DELETE", url: `/v2/templates/${id}` });
  const templates = Object.create(rig.client.templates) as ComputePlatform["templates"];
  templates.delete = async () => {
    throw failure;
  };
  const failing = { templates, endpoints: rig.client.endpoints, pods: rig.client.pods } as unknown as ComputePlatform;
  const clock = new HookedClock();
  const from = rig.emu.requestLog().length;
  await expect(provider({ client: () => failing, clock }).delete(id, outs)).rejects.toBe(failure);
  expect(clock.sleeps).toEqual([]);
  expect(requestsSince(from)).toEqual([]);
  await p0.delete(id, outs);
});

test("Template.get's read: with no state, the outputs are the platform's and the delete wait its default", async () => {
  const outside = await rig.client.templates.create({ name: "made-outside", image: "worker:1" });
  expect(await provider().read(outside.id)).toEqual({
    id: outside.id,
    props: expect.objectContaining({ id: outside.id, name: "made-outside", image: "worker:1", serverless: false, deleteWaitSeconds: 120 }),
  });
  await rig.client.templates.delete(outside.id);
});
