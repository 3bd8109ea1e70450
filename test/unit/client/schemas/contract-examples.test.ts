import type { z } from "zod";
import { makeApiError, problemFields } from "../../../../src/client/core/errors";
import { unreadableOf } from "../../../../src/client/core/records";
import * as schemas from "../../../../src/client/schemas";
import { loadContract } from "../../../helpers/contract";

// The public REST v2 contract's own examples, every one, through the client's zod schemas:
// a record the contract allows must never be refused by the client. Beside the examples,
// each modelled contract schema is compared field by field (names and required-ness) with
// its zod schema, so a field added to one and not the other fails here.

type Json = Record<string, any>;
const contract: Json = loadContract();

/** The zod schema each operation's success answer (and request body, where it has one) must pass. */
const OPERATIONS: Record<string, { response: z.ZodType; request?: z.ZodType }> = {
  listPods: { response: schemas.PodListSchema },
  createPod: { response: schemas.PodSchema, request: schemas.PodCreateParamsSchema },
  getPod: { response: schemas.PodSchema },
  updatePod: { response: schemas.PodSchema, request: schemas.PodUpdateParamsSchema },
  podAction: { response: schemas.PodSchema, request: schemas.PodActionRequestSchema },
  listTemplates: { response: schemas.TemplateListSchema },
  createTemplate: { response: schemas.TemplateSchema, request: schemas.TemplateCreateParamsSchema },
  getTemplate: { response: schemas.TemplateSchema },
  updateTemplate: { response: schemas.TemplateSchema, request: schemas.TemplateUpdateParamsSchema },
  listNetworkVolumes: { response: schemas.NetworkVolumeListSchema },
  createNetworkVolume: { response: schemas.NetworkVolumeSchema, request: schemas.NetworkVolumeCreateParamsSchema },
  getNetworkVolume: { response: schemas.NetworkVolumeSchema },
  updateNetworkVolume: { response: schemas.NetworkVolumeSchema, request: schemas.NetworkVolumeUpdateParamsSchema },
  listRegistries: { response: schemas.RegistryListSchema },
  createRegistry: { response: schemas.RegistrySchema, request: schemas.RegistryCreateParamsSchema },
  getRegistry: { response: schemas.RegistrySchema },
  listGpuTypes: { response: schemas.GpuListSchema },
  getGpuType: { response: schemas.GpuTypeSchema },
  listCpuTypes: { response: schemas.CpuListSchema },
  getCpuType: { response: schemas.CpuTypeSchema },
  listDataCenters: { response: schemas.DataCenterListSchema },
  getDataCenter: { response: schemas.DataCenterSchema },
  listBilling: { response: schemas.BillingResponseSchema },
  listPodBilling: { response: schemas.PodBillingResponseSchema },
  listNetworkVolumeBilling: { response: schemas.NetworkVolumeBillingResponseSchema },
  listEndpointBilling: { response: schemas.EndpointBillingResponseSchema },
  listEndpointWorkers: { response: schemas.EndpointWorkersSchema },
  listEndpointReleases: { response: schemas.EndpointReleasesSchema },
};

/** Contract operations with examples that the client does not call, and why. */
const NOT_CALLED: Record<string, string> = {
  getPodLogs: "a server-sent event stream of log lines; the client has no log reader",
  getWorkerLogs: "a server-sent event stream of log lines; the client has no log reader",
  listEndpoints: "this project manages serverless endpoints over GraphQL, not REST",
  createEndpoint: "this project manages serverless endpoints over GraphQL, not REST",
  getEndpoint: "this project manages serverless endpoints over GraphQL, not REST",
  updateEndpoint: "this project manages serverless endpoints over GraphQL, not REST",
  listServerlessBilling: "per-endpoint serverless billing is not part of issue 13's billing (pods, volumes, public endpoints, total)",
  listClusterBilling: "Instant Clusters are not a product of this platform",
};

/** Contract component schemas and the zod schema that models each (response or request). */
const COMPONENTS: Record<string, { zod: z.ZodType; kind: "response" | "request" }> = {
  GpuType: { zod: schemas.GpuTypeSchema, kind: "response" },
  CpuType: { zod: schemas.CpuTypeSchema, kind: "response" },
  DataCenter: { zod: schemas.DataCenterSchema, kind: "response" },
  CatalogResourceAvailability: { zod: schemas.CatalogAvailabilitySchema, kind: "response" },
  DataCenterAvailability: { zod: schemas.CatalogAvailabilitySchema, kind: "response" },
  NetworkVolume: { zod: schemas.NetworkVolumeSchema, kind: "response" },
  CreateNetworkVolumeRequest: { zod: schemas.NetworkVolumeCreateParamsSchema, kind: "request" },
  UpdateNetworkVolumeRequest: { zod: schemas.NetworkVolumeUpdateParamsSchema, kind: "request" },
  Template: { zod: schemas.TemplateSchema, kind: "response" },
  TemplateMounts: { zod: schemas.TemplateMountsSchema, kind: "response" },
  CreateTemplateRequest: { zod: schemas.TemplateCreateParamsSchema, kind: "request" },
  UpdateTemplateRequest: { zod: schemas.TemplateUpdateParamsSchema, kind: "request" },
  Registry: { zod: schemas.RegistrySchema, kind: "response" },
  CreateRegistryRequest: { zod: schemas.RegistryCreateParamsSchema, kind: "request" },
  BillingAmounts: { zod: schemas.BillingAmountsSchema, kind: "response" },
  BillingRecord: { zod: schemas.BillingRecordSchema, kind: "response" },
  PodBillingAmounts: { zod: schemas.PodBillingAmountsSchema, kind: "response" },
  PodBillingRecord: { zod: schemas.PodBillingRecordSchema, kind: "response" },
  EndpointBillingAmounts: { zod: schemas.EndpointBillingAmountsSchema, kind: "response" },
  EndpointBillingRecord: { zod: schemas.EndpointBillingRecordSchema, kind: "response" },
  NetworkVolumeBillingAmounts: { zod: schemas.NetworkVolumeBillingAmountsSchema, kind: "response" },
  NetworkVolumeBillingRecord: { zod: schemas.NetworkVolumeBillingRecordSchema, kind: "response" },
  BillingQuery: { zod: schemas.BillingQueryEchoSchema, kind: "response" },
  Pod: { zod: schemas.PodSchema, kind: "response" },
  PodGlobalNetworking: { zod: schemas.PodGlobalNetworkingSchema, kind: "response" },
  PodActionRequest: { zod: schemas.PodActionRequestSchema, kind: "request" },
  Worker: { zod: schemas.EndpointWorkerRecordSchema, kind: "response" },
  WorkerSummary: { zod: schemas.WorkerSummarySchema, kind: "response" },
  ListEndpointWorkersResponse: { zod: schemas.EndpointWorkersSchema, kind: "response" },
  Release: { zod: schemas.ReleaseSchema, kind: "response" },
  ReleaseDiffEntry: { zod: schemas.ReleaseDiffEntrySchema, kind: "response" },
  RolloutSummary: { zod: schemas.RolloutSummarySchema, kind: "response" },
  ListEndpointReleasesResponse: { zod: schemas.EndpointReleasesSchema, kind: "response" },
};

/** The query parameters each operation takes and the zod schema that checks the client's options. */
const QUERIES: Record<string, z.ZodType> = {
  listGpuTypes: schemas.GpuCatalogQuerySchema,
  getGpuType: schemas.GpuCatalogQuerySchema,
  listCpuTypes: schemas.CpuCatalogQuerySchema,
  getCpuType: schemas.CpuCatalogQuerySchema,
  listDataCenters: schemas.DataCenterCatalogQuerySchema,
  getDataCenter: schemas.DataCenterLookupQuerySchema,
  listBilling: schemas.BillingQueryParamsSchema,
  listPodBilling: schemas.PodBillingQueryParamsSchema,
  listNetworkVolumeBilling: schemas.NetworkVolumeBillingQueryParamsSchema,
  listEndpointBilling: schemas.BillingQueryParamsSchema,
};

/** Enum components and their zod enums: the same values, and the component's own examples pass. */
const ENUMS: Record<string, z.ZodEnum> = {
  AvailabilityLevel: schemas.AvailabilityLevelSchema,
  VolumeType: schemas.VolumeTypeSchema,
  GpuManufacturer: schemas.GpuManufacturerSchema,
  DataCenterRegion: schemas.DataCenterRegionSchema,
  Compliance: schemas.ComplianceSchema,
  TemplateCategory: schemas.TemplateCategorySchema,
  BillingBucketSize: schemas.BillingBucketSizeSchema,
  PodStatus: schemas.PodStatusSchema,
  PodAction: schemas.PodActionSchema,
  Cloud: schemas.CloudSchema,
  WorkerStatus: schemas.WorkerStatusSchema,
  ReleaseSource: schemas.ReleaseSourceSchema,
};

function deref(node: Json): Json {
  let out = node;
  while (out && typeof out.$ref === "string") {
    out = out.$ref.replace(/^#\//, "").split("/").reduce((n: Json, key: string) => n[key], contract);
  }
  return out;
}

/** An object schema's properties and required names, with `allOf` parts merged. */
function flatten(node: Json): { properties: Record<string, Json>; required: Set<string> } {
  const schema = deref(node);
  const properties: Record<string, Json> = { ...(schema.properties ?? {}) };
  const required = new Set<string>(schema.required ?? []);
  for (const part of schema.allOf ?? []) {
    const inner = flatten(part);
    Object.assign(properties, inner.properties);
    for (const name of inner.required) required.add(name);
  }
  return { properties, required };
}

function examplesOf(content: Json): [string, unknown][] {
  const out: [string, unknown][] = Object.entries(content.examples ?? {}).map(([name, ex]) => [name, (ex as Json).value]);
  if ("example" in content) out.push(["example", content.example]);
  return out;
}

function operations(): [string, Json][] {
  const out: [string, Json][] = [];
  for (const item of Object.values(contract.paths as Json)) {
    for (const [verb, op] of Object.entries(item as Json)) if (verb !== "parameters") out.push([op.operationId, op]);
  }
  return out;
}

const issues = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  if (!parsed.success) return parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  // A list reads record by record: a record it set aside as unreadable is refused all the same.
  const lists = Object.entries((parsed.data ?? {}) as Record<string, unknown>).filter(([, v]) => Array.isArray(v));
  return lists.flatMap(([key, list]) =>
    unreadableOf(list as unknown[]).flatMap((u) => u.issues.map((i) => `${key}.${u.index}.${i.path}: ${i.message}`)),
  );
};

const responseExamples: [string, string, unknown][] = [];
const requestExamples: [string, string, unknown][] = [];
const unmapped: string[] = [];
for (const [id, op] of operations()) {
  for (const [status, response] of Object.entries(op.responses ?? {}) as [string, Json][]) {
    if (!status.startsWith("2")) continue;
    for (const [type, content] of Object.entries(deref(response).content ?? {}) as [string, Json][]) {
      for (const [name, value] of examplesOf(content)) {
        if (OPERATIONS[id] && type === "application/json") responseExamples.push([id, `${status} ${name}`, value]);
        else if (!NOT_CALLED[id]) unmapped.push(`${id} ${status} ${type} ${name}`);
      }
    }
  }
  for (const [name, value] of examplesOf(op.requestBody?.content?.["application/json"] ?? {})) {
    if (OPERATIONS[id]?.request) requestExamples.push([id, name, value]);
    else if (!NOT_CALLED[id]) unmapped.push(`${id} request ${name}`);
  }
}

describe("every example of the contract passes the client's schemas", () => {
  test("each example belongs to an operation the client models or one listed with why it does not", () => {
    expect(unmapped).toEqual([]);
    expect(responseExamples.length).toBeGreaterThanOrEqual(Object.keys(OPERATIONS).length);
    expect(Object.keys(NOT_CALLED).filter((id) => !operations().some(([op]) => op === id))).toEqual([]);
  });

  test.each(responseExamples)("%s answers %s", (id, _name, value) => {
    expect(issues(OPERATIONS[id].response, value)).toEqual([]);
  });

  test.each(requestExamples)("%s request %s", (id, _name, value) => {
    expect(issues(OPERATIONS[id].request!, value)).toEqual([]);
  });

  const errorExamples = Object.entries(contract.components.responses as Json).flatMap(([name, response]) =>
    Object.entries((response as Json).content ?? {}).flatMap(([, content]) =>
      examplesOf(content as Json).map(([example, value]) => [name, example, value] as [string, string, Json]),
    ),
  );
  test.each(errorExamples)("%s %s becomes the ApiError of its status, with its detail", (_name, _example, value) => {
    const err = makeApiError({ status: value.status, ...problemFields(value.status, JSON.stringify(value)), method: "GET", url: "http://h/v2/x" });
    expect(err.status).toBe(value.status);
    expect(err.title).toBe(value.title);
    expect(err.message).toContain(value.detail);
  });

  const propertyExamples = Object.entries(COMPONENTS).flatMap(([component, { zod }]) =>
    Object.entries(flatten(contract.components.schemas[component]).properties).flatMap(([prop, node]) =>
      [...(node.examples ?? []), ...("example" in node ? [node.example] : [])].map(
        (value) => [component, prop, value, zod] as [string, string, unknown, z.ZodType],
      ),
    ),
  );
  test.each(propertyExamples)("%s.%s example %j", (_component, prop, value, zod) => {
    const shape = (zod as unknown as { shape: Record<string, z.ZodType> }).shape;
    expect(issues(shape[prop], value)).toEqual([]);
  });

  test.each(Object.entries(ENUMS))("%s has the contract's values, and its examples pass", (name, zod) => {
    const node = contract.components.schemas[name];
    expect([...zod.options].sort()).toEqual([...node.enum].sort());
    for (const value of node.examples ?? []) expect(zod.safeParse(value).success).toBe(true);
  });
});

describe("each modelled contract schema and its zod schema have the same fields", () => {
  test.each(Object.entries(COMPONENTS))("%s", (component, { zod, kind }) => {
    const { properties, required } = flatten(contract.components.schemas[component]);
    const shape = (zod as unknown as { shape: Record<string, z.ZodType> }).shape;
    expect(Object.keys(shape).sort()).toEqual(Object.keys(properties).sort());
    // A field the contract requires is required by the zod schema, and the other way round.
    const zodRequired = Object.keys(shape).filter((name) => !shape[name].safeParse(undefined).success);
    expect(zodRequired.sort()).toEqual([...required].sort());
    // Requests are strict (unknown properties are the server's 422); answers are open to new fields.
    const probe = { ...Object.fromEntries([...required].map((n) => [n, undefined])), notInTheContract: 1 };
    const extra = (zod as z.ZodType).safeParse(probe);
    const refusedUnknown = !extra.success && extra.error.issues.some((i) => i.code === "unrecognized_keys");
    expect(refusedUnknown).toBe(kind === "request");
  });
});

describe("the client's query options are the contract's query parameters", () => {
  test.each(Object.entries(QUERIES))("%s", (id, zod) => {
    const op = operations().find(([name]) => name === id)![1];
    const params = (op.parameters ?? []).map(deref).filter((p: Json) => p.in === "query");
    const shape = (zod as unknown as { shape: Record<string, z.ZodType> }).shape;
    expect(Object.keys(shape).sort()).toEqual(params.map((p: Json) => p.name).sort());
    for (const p of params) {
      const values = deref(p.schema);
      // Every enum value the contract lists (one item of a list) is accepted; the parameter's example too.
      const items = values.items ? deref(values.items) : values;
      for (const v of items.enum ?? []) expect(issues(shape[p.name], values.type === "array" ? [v] : v)).toEqual([]);
      for (const example of [p.example, values.example].filter((e) => e !== undefined)) expect(issues(shape[p.name], example)).toEqual([]);
    }
  });
});
