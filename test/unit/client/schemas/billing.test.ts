// The billing schemas (schemas/billing.ts): the window rules the contract states in prose
// (lastN or a time range, a range that moves forward), instants as a Date or an RFC 3339 text
// with an offset, each route's own filter, and the records read from the contract's examples.
import type { z } from "zod";
import { schemas } from "../../../../src/client";
import { contractExample } from "../../../helpers/contract";

const problems = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

const QUERIES = {
  summary: schemas.BillingQueryParamsSchema,
  pods: schemas.PodBillingQueryParamsSchema,
  networkVolumes: schemas.NetworkVolumeBillingQueryParamsSchema,
};

describe.each(Object.entries(QUERIES))("the %s query's window", (_route, schema) => {
  test("lastN or a time range, not both: the refusal names lastN", () => {
    for (const range of [{ startTime: "2026-06-01T00:00:00Z" }, { endTime: "2026-06-02T00:00:00Z" }]) {
      expect(problems(schema, { lastN: 3, ...range })).toEqual(["lastN: cannot be combined with startTime or endTime (give one or the other)"]);
    }
    expect(problems(schema, { lastN: 3, bucketSize: "week" })).toEqual([]);
  });

  test("a range must move forward: an end at or before its start is refused at endTime", () => {
    const start = "2026-06-02T00:00:00Z";
    expect(problems(schema, { startTime: start, endTime: "2026-06-01T23:59:59Z" })).toEqual(["endTime: must be after startTime"]);
    expect(problems(schema, { startTime: start, endTime: "2026-06-02T02:00:00+02:00" })).toEqual(["endTime: must be after startTime"]);
    expect(problems(schema, { startTime: start, endTime: "2026-06-02T00:00:01Z" })).toEqual([]);
    // One end alone is the platform's to fill (30 days ago, now).
    expect(problems(schema, { endTime: start })).toEqual([]);
  });

  test("an instant is a Date (sent as its ISO text) or an RFC 3339 text with an offset", () => {
    const parsed = schema.parse({ startTime: new Date(Date.UTC(2026, 5, 1)), endTime: "2026-06-02T00:00:00+02:00" });
    expect(parsed).toEqual({ startTime: "2026-06-01T00:00:00.000Z", endTime: "2026-06-02T00:00:00+02:00" });
    for (const bad of ["2026-06-01T00:00:00", "2026-06-01", "yesterday", new Date(Number.NaN), 1780000000000]) {
      expect(problems(schema, { startTime: bad })).toEqual([expect.stringMatching(/^startTime: /)]);
    }
  });

  test("lastN counts buckets: an integer of at least 1; bucketSize is one of the contract's sizes", () => {
    expect(problems(schema, { lastN: 1 })).toEqual([]);
    for (const lastN of [0, -1, 1.5]) expect(problems(schema, { lastN })).toEqual([expect.stringMatching(/^lastN: /)]);
    for (const bucketSize of ["hour", "day", "week", "month", "year"]) expect(problems(schema, { bucketSize })).toEqual([]);
    expect(problems(schema, { bucketSize: "minute" })).toEqual([expect.stringMatching(/^bucketSize: /)]);
  });
});

test("each route takes its own filter and no other's (the request is strict)", () => {
  expect(problems(schemas.PodBillingQueryParamsSchema, { podId: "pod-1" })).toEqual([]);
  expect(problems(schemas.NetworkVolumeBillingQueryParamsSchema, { networkVolumeId: "vol-1" })).toEqual([]);
  expect(problems(schemas.BillingQueryParamsSchema, { podId: "pod-1" })).toEqual([expect.stringMatching(/podId/)]);
  expect(problems(schemas.PodBillingQueryParamsSchema, { networkVolumeId: "vol-1" })).toEqual([expect.stringMatching(/networkVolumeId/)]);
  expect(problems(schemas.NetworkVolumeBillingQueryParamsSchema, { podId: "pod-1" })).toEqual([expect.stringMatching(/podId/)]);
  expect(problems(schemas.PodBillingQueryParamsSchema, { podId: "" })).toEqual([expect.stringMatching(/^podId: /)]);
});

describe("the records", () => {
  const RESPONSES: [string, string, z.ZodType][] = [
    ["listBilling", "billing", schemas.BillingResponseSchema],
    ["listPodBilling", "podBilling", schemas.PodBillingResponseSchema],
    ["listNetworkVolumeBilling", "networkVolumeBilling", schemas.NetworkVolumeBillingResponseSchema],
    ["listEndpointBilling", "endpointBilling", schemas.EndpointBillingResponseSchema],
  ];

  test.each(RESPONSES)("%s: the contract's example reads; an amount that is not a number or a missing window is refused", (op, name, schema) => {
    const example = contractExample(op, "200", name);
    expect(problems(schema, example)).toEqual([]);
    example.records[0].totalAmount = "12.34";
    delete example.records[0].endTime;
    delete example.metadata.query;
    expect(problems(schema, example).sort()).toEqual(["metadata.query: Invalid input: expected object, received undefined", "records.0.endTime: Invalid input: expected string, received undefined", "records.0.totalAmount: Invalid input: expected number, received string"]);
  });

  test("a per-object route counts its objects and echoes its filter, null when none was given", () => {
    const pods = contractExample("listPodBilling", "200", "podBilling");
    pods.metadata.query.podId = null;
    expect(problems(schemas.PodBillingResponseSchema, pods)).toEqual([]);
    delete pods.metadata.uniquePodCount;
    expect(problems(schemas.PodBillingResponseSchema, pods)).toEqual([expect.stringMatching(/^metadata.uniquePodCount: /)]);
    const volumes = contractExample("listNetworkVolumeBilling", "200", "networkVolumeBilling");
    delete volumes.records[0].networkVolumeId;
    expect(problems(schemas.NetworkVolumeBillingResponseSchema, volumes)).toEqual([expect.stringMatching(/^records.0.networkVolumeId: /)]);
  });

  test("answers are open to fields the contract may add later, and keep them", () => {
    const billing = contractExample("listBilling", "200", "billing");
    billing.records[0].quantumAmount = 1;
    expect(schemas.BillingResponseSchema.parse(billing).records[0]).toMatchObject({ quantumAmount: 1 });
  });
});
