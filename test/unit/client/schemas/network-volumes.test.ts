// The network volumes' schemas (schemas/network-volumes.ts): a create's size within 10 GB to
// 4 TB and its storage type, fixed at creation; an update that renames or grows and must set
// one of the two (the contract's minProperties: 1); the volume as the contract's examples show it.
import type { z } from "zod";
import { schemas } from "../../../../src/client";
import { contractExample } from "../../../helpers/contract";

const problems = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("a create", () => {
  const create = (over: Record<string, unknown> = {}) => problems(schemas.NetworkVolumeCreateParamsSchema, { ...contractExample("createNetworkVolume", "request", "networkVolume"), ...over });

  test("the contract's example passes; the type may be left out (the data center's first tier)", () => {
    expect(create()).toEqual([]);
    expect(create({ type: undefined })).toEqual([]);
    expect(create({ type: "FAST" })).toEqual([expect.stringMatching(/^type: /)]);
  });

  test("the size is a whole number of GB from 10 to 4096", () => {
    for (const size of [10, 4096]) expect(create({ size })).toEqual([]);
    for (const size of [9, 4097, 50.5]) expect(create({ size })).toEqual([expect.stringMatching(/^size: /)]);
  });

  test("a name and a data center are required and not empty; nothing outside the contract is sent", () => {
    expect(create({ name: "" })).toEqual([expect.stringMatching(/^name: /)]);
    expect(create({ dataCenter: undefined })).toEqual([expect.stringMatching(/^dataCenter: /)]);
    expect(create({ mountPath: "/data" })).toEqual([expect.stringMatching(/mountPath/)]);
  });
});

describe("an update", () => {
  const update = (body: unknown) => problems(schemas.NetworkVolumeUpdateParamsSchema, body);

  test("renames, grows, or both; the contract's example passes", () => {
    expect(update(contractExample("updateNetworkVolume", "request", "resizeNetworkVolume"))).toEqual([]);
    expect(update({ name: "renamed" })).toEqual([]);
    expect(update({ name: "renamed", size: 100 })).toEqual([]);
  });

  test("an empty update is refused, saying what to set", () => {
    expect(update({})).toEqual([": must set name or size (an empty update is refused)"]);
  });

  test("the type is fixed at creation: an update naming it is refused", () => {
    expect(update({ size: 100, type: "STANDARD" })).toEqual([expect.stringMatching(/type/)]);
    expect(update({ size: 4097 })).toEqual([expect.stringMatching(/^size: /)]);
  });
});

test("the volume: the contract's examples read; its type is required and one of the tiers", () => {
  const volume = contractExample("getNetworkVolume", "200", "networkVolume");
  expect(problems(schemas.NetworkVolumeSchema, volume)).toEqual([]);
  expect(problems(schemas.NetworkVolumeSchema, { ...volume, type: undefined })).toEqual([expect.stringMatching(/^type: /)]);
  expect(problems(schemas.NetworkVolumeSchema, { ...volume, type: "TAPE" })).toEqual([expect.stringMatching(/^type: /)]);
  expect(schemas.NetworkVolumeSchema.parse({ ...volume, encrypted: true })).toMatchObject({ encrypted: true });
});
