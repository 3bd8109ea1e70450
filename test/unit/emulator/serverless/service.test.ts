// The serverless service's own rules, driven directly with a fake clock: mutations need the
// write scope and myself the read scope (FORBIDDEN otherwise), the account's discount, the
// workers as a reader sees them at the current time, and its part of the state file replaced
// whole or not at all. Its GraphQL documents are graphql/execute.test.ts beside it.
import { DRAIN_MS, fieldFailure, setup, STARTING_MS } from "../../../helpers/serverless-service";

describe("FORBIDDEN: mutations from a read-only caller", () => {
  test("saveEndpoint is refused and nothing is created", async () => {
    const { save, list } = setup();
    const r = await save(`name: "a", gpuIds: "AMPERE_16", templateId: "t"`, false);
    fieldFailure(r, "saveEndpoint", "FORBIDDEN");
    expect(await list()).toEqual([]);
  });

  test("deleteEndpoint is refused and the endpoint stays", async () => {
    const { gql, create, list } = setup();
    const ep = await create("workersMax: 0");
    const r = await gql(`mutation { deleteEndpoint(id: "${ep.id}") }`, { canWrite: false });
    fieldFailure(r, "deleteEndpoint", "FORBIDDEN");
    expect(await list()).toHaveLength(1);
  });

  test("a read-only caller may still query myself", async () => {
    const { gql, create } = setup();
    const ep = await create();
    const r = await gql("{ myself { endpoints { id } } }", { canWrite: false });
    expect(r.body).toEqual({ data: { myself: { endpoints: [{ id: ep.id }] } } });
  });
});

describe("myself.serverlessDiscount", () => {
  test("is null when no discount applies", async () => {
    const { gql } = setup();
    const r = await gql("{ myself { serverlessDiscount { discountFactor type expirationDate } } }");
    expect(r.body).toEqual({ data: { myself: { serverlessDiscount: null } } });
  });

  test("is the configured object when one applies", async () => {
    const discount = { discountFactor: 0.8, type: "PROMO", expirationDate: "2027-01-01T00:00:00Z" };
    const { gql } = setup({ serverlessDiscount: discount });
    const r = await gql("{ myself { serverlessDiscount { discountFactor type expirationDate } } }");
    expect(r.body.data.myself.serverlessDiscount).toEqual(discount);
  });
});

describe("workers", () => {
  const modify = (save: ReturnType<typeof setup>["save"], id: string, more: string) =>
    save(`id: "${id}", name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", ${more}`);
  const statuses = async (list: ReturnType<typeof setup>["list"]) =>
    (await list())[0].pods.map((p: any) => p.desiredStatus);

  test("workersMin workers are STARTING until startingMs has passed, then RUNNING", async () => {
    const { create, list, advance } = setup();
    const ep = await create("workersMin: 2");
    expect(ep.pods.map((p: any) => p.desiredStatus)).toEqual(["STARTING", "STARTING"]);
    advance(STARTING_MS - 1);
    expect(await statuses(list)).toEqual(["STARTING", "STARTING"]);
    advance(1);
    expect(await statuses(list)).toEqual(["RUNNING", "RUNNING"]);
  });

  test("a scale-down drains the surplus: EXITED for drainMs, then gone", async () => {
    const { create, save, list, advance } = setup();
    const ep = await create("workersMin: 2");
    advance(STARTING_MS);
    await modify(save, ep.id, "workersMin: 0");
    expect(await statuses(list)).toEqual(["EXITED", "EXITED"]);
    advance(DRAIN_MS - 1);
    expect(await statuses(list)).toEqual(["EXITED", "EXITED"]);
    advance(1);
    expect(await statuses(list)).toEqual([]);
  });

  test("a partial scale-down drains the newest workers and keeps the oldest running", async () => {
    const { create, save, list, advance } = setup();
    const ep = await create("workersMin: 1");
    advance(STARTING_MS);
    const first = (await list())[0].pods[0].id;
    await modify(save, ep.id, "workersMin: 2");
    await modify(save, ep.id, "workersMin: 1");
    const pods = (await list())[0].pods;
    expect(pods.find((p: any) => p.id === first).desiredStatus).toBe("RUNNING");
    expect(pods.map((p: any) => p.desiredStatus).sort()).toEqual(["EXITED", "RUNNING"]);
  });

  test("a scale-up while workers drain starts new ones beside the draining", async () => {
    const { create, save, list, advance } = setup();
    const ep = await create("workersMin: 1");
    await modify(save, ep.id, "workersMin: 0");
    advance(10);
    await modify(save, ep.id, "workersMin: 1");
    expect(await statuses(list)).toEqual(["EXITED", "STARTING"]);
    advance(STARTING_MS);
    expect(await statuses(list)).toEqual(["RUNNING"]);
  });

  test("endpoints() shows the same view as myself, workers included", async () => {
    const { svc, create, list, advance } = setup();
    await create("workersMin: 1");
    advance(STARTING_MS);
    // Beside GraphQL's fields, the introspection carries REST's own dataCenterIds (none here).
    expect(svc.endpoints().map(({ dataCenterIds, ...graphql }) => (expect(dataCenterIds).toEqual([]), graphql))).toEqual(await list());
    expect(Object.isFrozen(svc.endpoints())).toBe(true);
  });
});

describe("snapshot and restore", () => {
  test("round-trip every piece of state through JSON, timestamps and id counter included", async () => {
    const a = setup();
    const ep1 = await a.create("workersMin: 2, locations: \"US\"");
    const ep2 = await a.create("workersMin: 1");
    await a.save(`id: "${ep2.id}", name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", workersMin: 0`);
    const snap = JSON.parse(JSON.stringify(a.svc.snapshot()));

    const b = setup();
    b.svc.restore(snap);
    expect(b.svc.snapshot()).toEqual(snap);
    expect(await b.list()).toEqual(await a.list());
    // Timestamps carried over: the restored workers finish starting and draining on time.
    b.advance(STARTING_MS);
    const after = await b.list();
    expect(after.find((e) => e.id === ep1.id).pods.map((p: any) => p.desiredStatus)).toEqual([
      "RUNNING",
      "RUNNING",
    ]);
    expect(after.find((e) => e.id === ep2.id).pods).toEqual([]);
    // The id counter carried over: a new endpoint does not reuse an id.
    const ep3 = await b.create();
    expect([ep1.id, ep2.id]).not.toContain(ep3.id);
    expect(b.svc.snapshot().idCounter).toBe(3);
  });

  test("a snapshot written before gpuCount and executionTimeoutMs existed reads their defaults; a stored \"\" reads null", async () => {
    const a = setup();
    await a.create("gpuCount: 3");
    const old = JSON.parse(JSON.stringify(a.svc.snapshot()));
    delete old.endpoints[0].gpuCount;
    delete old.endpoints[0].executionTimeoutMs;
    old.endpoints[0].networkVolumeId = "";
    old.endpoints[0].locations = "";
    const b = setup();
    b.svc.restore(old);
    expect((await b.list())[0]).toMatchObject({ gpuCount: 1, executionTimeoutMs: 300000, networkVolumeId: null, locations: null });
  });

  test("a snapshot with gpuCount 0 is refused", async () => {
    const { svc, create } = setup();
    await create();
    const bad = JSON.parse(JSON.stringify(svc.snapshot()));
    bad.endpoints[0].gpuCount = 0;
    expect(() => svc.restore(bad)).toThrow(/gpuCount/);
  });

  test("restore refuses something that is not a snapshot and keeps the current state", async () => {
    const { svc, create, list } = setup();
    await create();
    const before = await list();
    expect(() => svc.restore({ version: 1, endpoints: "nope" })).toThrow(/not a serverless snapshot/);
    expect(() => svc.restore(null)).toThrow(/not a serverless snapshot/);
    expect(await list()).toEqual(before);
  });

  test("restore refuses a snapshot with a value the schema cannot serve or repeated ids", async () => {
    const { svc, create, list } = setup();
    await create();
    const good = JSON.parse(JSON.stringify(svc.snapshot()));
    const badEnum = structuredClone(good);
    badEnum.endpoints[0].flashBootType = "TURBO";
    expect(() => svc.restore(badEnum)).toThrow(/flashBootType/);
    const twice = structuredClone(good);
    twice.endpoints.push(twice.endpoints[0]);
    expect(() => svc.restore(twice)).toThrow(/endpoint ids repeat/);
    expect(await list()).toHaveLength(1);
  });

  test("a snapshot whose id counter lags its endpoints still gets fresh ids", async () => {
    const a = setup();
    const ep = await a.create();
    const snap = { ...a.svc.snapshot(), idCounter: 0 };
    const b = setup(); // same seed: the same random tail comes up again
    b.svc.restore(snap);
    const next = await b.create();
    expect(next.id).not.toBe(ep.id);
    expect((await b.list()).map((e) => e.id)).toEqual([ep.id, next.id]);
  });
});

describe("the GraphQL view of what REST may store", () => {
  test("a scalerValue below 1 reads rounded up, and REST's PRIORITY_FLASHBOOT reads FLASHBOOT", async () => {
    const { svc, create, list } = setup();
    const ep = await create();
    svc.endpointStore.save({ id: ep.id, name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", scalerValue: 0.5, flashBootType: "PRIORITY_FLASHBOOT" }, 0);
    expect((await list())[0]).toMatchObject({ scalerValue: 1, flashBootType: "FLASHBOOT" });
    expect(svc.endpointStore.get(ep.id)).toMatchObject({ scalerValue: 0.5, flashBootType: "PRIORITY_FLASHBOOT" });
  });

  test("a GraphQL save of a scalerValue below 1 is refused naming it (GraphQL's is at least 1)", async () => {
    const { save } = setup();
    const r = await save(`name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", scalerValue: 0`);
    expect(fieldFailure(r, "saveEndpoint", "BAD_USER_INPUT")).toBe("input.scalerValue must be >= 1, got 0");
  });
});

describe("what an endpoint names, and its removal from outside", () => {
  test("with references, templateId must be a serverless template and networkVolumeId a volume of the owner", async () => {
    const { save } = setup({ references: { isServerlessTemplate: (id: string) => id === "tpl-1", volumeExists: (id: string) => id === "vol-1" } });
    const bad = await save(`name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-2", networkVolumeId: "vol-2"`);
    expect(fieldFailure(bad, "saveEndpoint", "BAD_USER_INPUT")).toBe(
      'input.templateId "tpl-2" is not one of your serverless templates; input.networkVolumeId "vol-2" is not one of your network volumes',
    );
    const good = await save(`name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", networkVolumeId: "vol-1"`);
    expect(good.body.errors).toBeUndefined();
  });

  test("endpointUsing names the endpoint bound to a template or volume; an outside removal takes it, workers or not", async () => {
    const { svc, create, list } = setup();
    const ep = await create(`, workersMin: 1, networkVolumeId: "vol-1"`);
    expect(svc.endpointUsing("templateId", "tpl-1")).toBe(`serverless endpoint '${ep.id}'`);
    expect(svc.endpointUsing("networkVolumeId", "vol-1")).toBe(`serverless endpoint '${ep.id}'`);
    expect(svc.endpointUsing("networkVolumeId", "vol-2")).toBeUndefined();
    expect(svc.removeFromOutside(ep.id)).toBe(true);
    expect(await list()).toEqual([]);
    expect(svc.removeFromOutside(ep.id)).toBe(false);
  });
});
