/**
 * 401 and 403 are final: one request each, never retried, and the message says which setting
 * to fix. A read-only key changes nothing: every create, update and delete of a Pod and an
 * endpoint through the providers fails with 403 before anything is made or changed.
 */
import { ComputePlatform } from "../../src/client";
import { PodProvider } from "../../src/resources/pod/provider";
import { ServerlessEndpointProvider } from "../../src/resources/serverless-endpoint/provider";
import { compressedClock, READ_ONLY_KEY, type Rig, SENTINEL_KEY, startRig } from "../../tools/faults";
import { createServerlessTemplate } from "../helpers/emulator-fixtures";

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(() => rig?.close());

const SETTING = /computeplatform:apiKey|COMPUTEPLATFORM_API_KEY/;

/** The providers on a client with `key` (retries on, so a retry would show in the counts). */
function withKey(key: string) {
  const client = new ComputePlatform({ apiKey: key, apiUrl: rig.emu.url, pacing: false, maxRetries: 4, clock: compressedClock(100), env: {} });
  return {
    client,
    pod: new PodProvider({ client: () => client, poll: { intervalMs: 5, maxIntervalMs: 15 } }),
    endpoint: new ServerlessEndpointProvider({ client: () => client, pollIntervalMs: 5 }),
  };
}

/** Requests the emulator saw while `fn` ran, and what `fn` threw. */
async function observe(fn: () => Promise<unknown>): Promise<{ statuses: number[]; error: Error }> {
  const from = rig.emu.requestLog().length;
  const error = await fn().then(
    () => new Error("expected a failure"),
    (e: Error) => e,
  );
  return { statuses: rig.emu.requestLog().slice(from).map((e) => e.status), error };
}

test("401: one request per operation, REST and GraphQL, the message names the API key setting", async () => {
  const bad = withKey("cp_not_a_key_at_all");
  const podInputs = (await bad.pod.check({}, { image: "img/app:1", gpu: { id: rig.gpuId }, __logicalName: "w" })).inputs!;
  const epInputs = (await bad.endpoint.check({}, { gpuIds: "AMPERE_24", templateId: "t", __logicalName: "e" })).inputs!;
  for (const op of [() => bad.pod.create(podInputs), () => bad.endpoint.create(epInputs), () => bad.client.pods.list(), () => bad.client.endpoints.list()]) {
    const r = await observe(op);
    expect(r.statuses).toEqual([401]);
    expect(r.error.message).toMatch(SETTING);
  }
  await bad.client.close();
});

describe("a read-only key", () => {
  const ro = () => withKey(READ_ONLY_KEY);
  const full = () => withKey(SENTINEL_KEY);

  test("Pod: create fails with 403 and makes nothing; update and delete fail with 403 and change nothing", async () => {
    const r = ro();
    const w = full();
    const inputs = (await r.pod.check({}, { name: "ro-pod", image: "img/app:1", gpu: { id: rig.gpuId }, env: { A: "1" }, __logicalName: "w" })).inputs!;

    const create = await observe(() => r.pod.create(inputs));
    // The list of the ids already there (a create finds again only what it made), then the refused POST.
    expect(create.statuses).toEqual([200, 403]);
    expect(create.error.message).toMatch(/403|not allowed|read-only/);
    expect(create.error.message).toMatch(SETTING);
    expect(rig.emu.state().pods.filter((p) => p.name === "ro-pod")).toEqual([]);

    // A pod made with the full key; the read-only key may read it but not touch it.
    const made = await w.pod.create(inputs);
    const snapshot = () => {
      const p = rig.emu.state().pods.find((x) => x.id === made.id)!;
      return { name: p.name, env: p.env, status: p.status, image: p.image, locked: p.locked };
    };
    const before = snapshot();
    expect((await r.pod.read(made.id, made.outs!)).id).toBe(made.id);
    const news = (await r.pod.check(inputs, { ...inputs, env: { A: "2" }, image: "img/app:2", locked: true })).inputs!;
    const update = await observe(() => r.pod.update(made.id, made.outs!, news));
    expect(update.statuses).toEqual([403]);
    expect(update.error.message).toMatch(SETTING);
    expect(snapshot()).toEqual(before);

    const del = await observe(() => r.pod.delete(made.id, made.outs!));
    expect(del.statuses).toEqual([403]);
    expect(snapshot()).toEqual(before);

    await w.pod.delete(made.id, made.outs!);
    await r.client.close();
    await w.client.close();
  });

  test("endpoint: create (after its list of the ids already there), update and delete fail with 403 (FORBIDDEN), nothing made or changed", async () => {
    const r = ro();
    const w = full();
    // The platform checks that the template exists and is serverless.
    const tpl = await createServerlessTemplate(rig.emu.url, rig.emu.apiKey);
    const inputs = (await r.endpoint.check({}, { name: "ro-api", gpuIds: "AMPERE_24", templateId: tpl, workersMin: 0, workersMax: 2, __logicalName: "e" })).inputs!;

    const create = await observe(() => r.endpoint.create(inputs));
    // The list of the ids already there, then the refused save (GraphQL answers FORBIDDEN inside a 200).
    expect(create.statuses).toEqual([200, 200]);
    expect(create.error.message).toMatch(/403|FORBIDDEN|not allowed/i);
    expect(create.error.message).toMatch(SETTING);
    expect(rig.emu.state().endpoints).toEqual([]);

    const made = await w.endpoint.create(inputs);
    const live = () => structuredClone(rig.emu.state().endpoints);
    const before = live();
    const news = (await r.endpoint.check(inputs, { ...inputs, workersMax: 3, idleTimeout: 9 })).inputs!;
    const update = await observe(() => r.endpoint.update(made.id, made.outs!, news));
    expect(update.statuses).toEqual([200]);
    expect(update.error.message).toMatch(SETTING);
    expect(live()).toEqual(before);

    // Delete starts by scaling to zero: refused at that first write, so the endpoint keeps its workers.
    const del = await observe(() => r.endpoint.delete(made.id, made.outs!));
    expect(rig.emu.requestLog().slice(-del.statuses.length).map((e) => e.op)).not.toContain("deleteEndpoint");
    expect(del.error.message).toMatch(SETTING);
    expect(live()).toEqual(before);

    await w.endpoint.delete(made.id, made.outs!);
    expect(rig.emu.state().endpoints).toEqual([]);
    await r.client.close();
    await w.client.close();
  });
});
