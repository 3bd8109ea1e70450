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
