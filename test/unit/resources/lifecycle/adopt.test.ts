// The adoption flow every kind shares (lifecycle/adopt.ts), over a kind made up here: no I/O.
import * as pulumi from "@pulumi/pulumi";
import { NotFoundError } from "../../../../src/client";
import { adopt, type Adoptable, AdoptionRefused, type KindLookup, checkAdoption, lookAdoption, refuseReplaceWhileAdopted, releaseClaim, unfinishedCreate } from "../../../../src/resources/lifecycle/adopt";

interface Box {
  id: string;
  zone: string;
  size: number;
  name: string;
}
type Inputs = { zone?: unknown; size?: unknown; name?: unknown; __logicalName?: string };

/** An account whose only other objects are pods with these ids (the rest answer 404). */
const podsOnly = (ids: string[]): KindLookup =>
  ({
    pods: {
      get: async (id: string) => {
        if (ids.includes(id)) return { id, status: "RUNNING" };
        throw new NotFoundError(`pod ${id} not found`, { status: 404, title: "Not Found", detail: `pod ${id} not found`, errors: [], method: "GET", url: `/v2/pods/${id}` });
      },
    },
  }) as unknown as KindLookup;

/** A kind whose `zone` never changes and whose `size` only grows. */
const boxes = (found: Record<string, Box>, podIds: string[] = []): Adoptable<Box, Box, Inputs> => ({
  kind: "Box",
  noun: "box",
  find: async (id) => found[id],
  baseline: (b) => b,
  plan: (b, i) => ({
    replaces: b.zone !== i.zone ? ["zone"] : [],
    updates: [...(b.size !== i.size ? ["size"] : []), ...(b.name !== i.name ? ["name"] : [])],
    refused: typeof i.size === "number" && i.size < b.size ? `size cannot shrink from ${b.size}` : undefined,
  }),
  fixed: (b) => `zone: "${b.zone}"`,
  wayOut: "remove adopt to make a new box",
  refuse: (b) => unfinishedCreate(b.name),
  account: { client: podsOnly(podIds) },
});
const found = { b1: { id: "b1", zone: "z1", size: 10, name: "one" }, b2: { id: "b2", zone: "z1", size: 10, name: "two~creating" } };

test("what differs in place is listed; a fixed field, a shrink, a missing id, another kind's id and an unfinished create are refused", async () => {
  expect(await lookAdoption(boxes(found), "b1", { zone: "z1", size: 20, name: "one" })).toMatchObject({ id: "b1", updates: ["size"], deferred: [] });
  await expect(lookAdoption(boxes(found), "b1", { zone: "z2", size: 10, name: "one" })).rejects.toThrow(
    'adopt: box b1 differs from the declaration in zone, which cannot change on an existing box; declare it as the box has it (zone: "z1"), or remove adopt to make a new box',
  );
  await expect(lookAdoption(boxes(found), "b1", { zone: "z1", size: 5, name: "one" })).rejects.toThrow("adopt: box b1: size cannot shrink from 10");
  await expect(lookAdoption(boxes(found), "nope", {})).rejects.toThrow(new AdoptionRefused("there is no box with ID nope"));
  await expect(lookAdoption(boxes(found, ["p1"]), "p1", {})).rejects.toThrow("adopt: there is no box with ID p1: p1 is a Pod's ID; declare it with that kind's resource");
  await expect(lookAdoption(boxes(found), "b2", { zone: "z1", size: 10, name: "two~creating" })).rejects.toThrow(/^adopt: box b2 is an unfinished create of a stack/);
});

test("a field not known at preview (another adopted resource's id) is deferred to up, not refused", async () => {
  const look = await lookAdoption(boxes(found), "b1", { zone: pulumi.runtime.unknownValue, size: pulumi.runtime.unknownValue, name: "one" });
  expect(look).toMatchObject({ updates: [], deferred: ["zone", "size"] });
});

test("check: a create notes what up does; a refusal is a failure on adopt; old inputs or failures already send nothing", async () => {
  const lines: string[] = [];
  const result = { inputs: { zone: "z1", size: 12, name: "one", __logicalName: "c1" } };
  expect(await checkAdoption(boxes(found), {}, "b1", result, (l) => lines.push(l))).toBe(result);
  expect(lines).toEqual(['Box "c1" adopts box b1: nothing is created; the first up updates size in place']);
  const refused = await checkAdoption(boxes(found), {}, "b1", { inputs: { zone: "z9", size: 10, name: "one", __logicalName: "c1" } }, () => undefined);
  expect(refused.failures).toEqual([{ property: "adopt", reason: expect.stringContaining("differs from the declaration in zone") }]);
  const failing = { inputs: {}, failures: [{ property: "size", reason: "x" }] };
  const never = { ...boxes(found), find: async () => Promise.reject(new Error("no request expected")) };
  expect(await checkAdoption(never, {}, "b1", failing)).toBe(failing);
  expect(await checkAdoption(never, { size: 1 }, "b1", result)).toBe(result);
  expect(await checkAdoption(never, {}, undefined, result)).toBe(result);
  releaseClaim("Box", "b1");
});

test("one object, one resource: a second resource of the process is refused until the first lets go", async () => {
  const take = (logical: string) => adopt(boxes(found), "b1", { zone: "z1", size: 10, name: "one", __logicalName: logical }, async ({ id }) => id);
  expect(await take("first")).toBe("b1");
  await expect(take("second")).rejects.toThrow('adopt: Box b1 is adopted by another resource of this deployment (Box "first"): one object, one resource');
  expect(await take("first")).toBe("b1");
  releaseClaim("Box", "b1");
  expect(await take("second")).toBe("b1");
  // A take-over that fails lets go: the object is the user's as it was found.
  releaseClaim("Box", "b1");
  await expect(adopt(boxes(found), "b1", { zone: "z1", size: 10, name: "one", __logicalName: "third" }, async () => Promise.reject(new Error("PATCH failed")))).rejects.toThrow("PATCH failed");
  expect(await take("fourth")).toBe("b1");
  releaseClaim("Box", "b1");
});

test("a replacement while adopt names the object in state is refused; any other is not", () => {
  expect(() => refuseReplaceWhileAdopted("Box", "one", "b1", { adopt: "b1" }, ["zone"])).toThrow(
    "Box one: zone cannot change on an adopted object while adopt is set (a new one would adopt b1 again, then delete it). Remove adopt to let Pulumi create a new one and delete this one, or change the program back.",
  );
  expect(() => refuseReplaceWhileAdopted("Box", "one", "b1", {}, ["zone"])).not.toThrow();
  expect(() => refuseReplaceWhileAdopted("Box", "one", "b1", { adopt: "b1" }, [])).not.toThrow();
  expect(() => refuseReplaceWhileAdopted("Box", "one", "b1", { adopt: "other" }, ["zone"])).not.toThrow();
});

test("the note says when up changes nothing, what is known only at up, and the kind's caveat; a resource without a logical name is its kind", async () => {
  const lines: string[] = [];
  const kind = { ...boxes(found), caveat: "its secret cannot be read back" };
  await checkAdoption(kind, undefined, "b1", { inputs: { zone: "z1", size: 10, name: "one" } }, (l) => lines.push(l));
  releaseClaim("Box", "b1");
  await checkAdoption(kind, {}, "b1", { inputs: { zone: pulumi.runtime.unknownValue, size: 10, name: "renamed", __logicalName: "c2" } }, (l) => lines.push(l));
  releaseClaim("Box", "b1");
  expect(lines).toEqual([
    "Box adopts box b1: nothing is created; the first up changes nothing on it; its secret cannot be read back",
    'Box "c2" adopts box b1: nothing is created; the first up updates name in place (zone: known at up, from resources not made yet); its secret cannot be read back',
  ]);
});

test("an error that is not a refusal (the platform failing) is passed on by check, not made a failure", async () => {
  const failing = { ...boxes(found), find: async () => Promise.reject(new Error("503 from the platform")) };
  await expect(checkAdoption(failing, {}, "b1", { inputs: {} }, () => undefined)).rejects.toThrow("503 from the platform");
  // Failures already there are kept beside a refusal.
  const result = await checkAdoption(boxes(found), {}, "nope", { inputs: {}, failures: [] }, () => undefined);
  expect(result.failures).toEqual([{ property: "adopt", reason: "adopt: there is no box with ID nope" }]);
});

test("fields that cannot change are named together, as them; a value nested in an object that is not known yet is deferred", async () => {
  const twoFixed: Adoptable<Box, Box, Inputs> = { ...boxes(found), plan: () => ({ replaces: ["zone", "size"], updates: ["name"] }) };
  await expect(lookAdoption(twoFixed, "b1", { zone: "z2", size: 3 })).rejects.toThrow(
    'adopt: box b1 differs from the declaration in zone, size, which cannot change on an existing box; declare them as the box has them (zone: "z1"), or remove adopt to make a new box',
  );
  const oneFixed: Adoptable<Box, Box, Inputs> = { ...boxes(found), plan: () => ({ replaces: ["zone"], updates: ["size", "name"] }) };
  const nested = await lookAdoption(oneFixed, "b1", { zone: { from: [pulumi.runtime.unknownValue] }, size: { at: null, of: 3 }, name: { deep: { er: pulumi.runtime.unknownValue } } });
  expect(nested).toMatchObject({ updates: ["size"], deferred: ["zone", "name"] });
  await expect(lookAdoption(oneFixed, "b1", { zone: { from: ["z2"] }, size: 3, name: "x" })).rejects.toThrow("in zone, which");
});

test("the kind of an id asks each other kind once, skips the one asked for, passes a TERMINATED object over and any error but a 404 on", async () => {
  const notFound = (id: string) => new NotFoundError(`${id} not found`, { status: 404, title: "Not Found", detail: "", errors: [], method: "GET", url: `/x/${id}` });
  const asked: string[] = [];
  const signal = new AbortController().signal;
  const answering = (kind: string, answer: (id: string) => unknown) => ({
    get: async (id: string, opts: { signal?: AbortSignal }) => {
      asked.push(kind);
      expect(opts.signal).toBe(signal);
      return answer(id);
    },
  });
  const account = {
    pods: answering("pods", () => ({ status: "TERMINATED" })),
    networkVolumes: answering("networkVolumes", (id) => Promise.reject(notFound(id))),
    templates: answering("templates", (id) => Promise.reject(notFound(id))),
    registries: answering("registries", (id) => Promise.reject(notFound(id))),
    serverless: answering("serverless", () => ({ id: "e1" })),
  } as unknown as KindLookup;
  const kind = { ...boxes(found), account: { client: account, signal } };
  await expect(lookAdoption(kind, "e1", {})).rejects.toThrow("adopt: there is no box with ID e1: e1 is a ServerlessEndpoint's ID; declare it with that kind's resource");
  expect(asked).toEqual(["pods", "networkVolumes", "templates", "registries", "serverless"]);
  asked.length = 0;
  await expect(lookAdoption({ ...kind, kind: "ServerlessEndpoint" }, "e1", {})).rejects.toThrow(/^adopt: there is no box with ID e1$/);
  expect(asked).toEqual(["pods", "networkVolumes", "templates", "registries"]);
  for (const [field, label] of [["networkVolumes", "NetworkVolume"], ["templates", "Template"], ["registries", "RegistryCredential"]] as const) {
    const one = { [field]: answering(field, () => ({ id: "x" })) } as unknown as KindLookup;
    await expect(lookAdoption({ ...kind, account: { client: one, signal } }, "x", {})).rejects.toThrow(`x is a ${label}'s ID`);
  }
  const broken = { pods: answering("pods", () => Promise.reject(new Error("401 bad key"))) } as unknown as KindLookup;
  await expect(lookAdoption({ ...kind, account: { client: broken, signal } }, "x", {})).rejects.toThrow("401 bad key");
  // Without a signal, none is passed.
  const bare = { pods: { get: async (_id: string, opts: object) => (asked.push(JSON.stringify(opts)), { id: "p" }) } } as unknown as KindLookup;
  asked.length = 0;
  await expect(lookAdoption({ ...kind, account: { client: bare } }, "p", {})).rejects.toThrow("p is a Pod's ID");
  expect(asked).toEqual(["{}"]);
});

test("by default the note goes to Pulumi's log; a kind with no refusal rule adopts whatever has the id", async () => {
  const info = jest.spyOn(pulumi.log, "info").mockImplementation(async () => undefined);
  try {
    const { refuse: _r, ...open } = boxes(found);
    await checkAdoption(open, {}, "b2", { inputs: { zone: "z1", size: 10, name: "two~creating", __logicalName: "d" } });
    expect(info).toHaveBeenCalledWith('Box "d" adopts box b2: nothing is created; the first up changes nothing on it');
  } finally {
    info.mockRestore();
    releaseClaim("Box", "b2");
  }
  expect(unfinishedCreate("two")).toBeUndefined();
  expect(unfinishedCreate(undefined)).toBeUndefined();
});
