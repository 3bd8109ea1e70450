// The serverless service's part of the state file, checked on restore: endpoints with their
// workers' timestamps, the id counters and the account's discount. Fields added since the
// first state files have defaults, so an older file keeps loading.
import { z } from "zod";
import type { EndpointRecord } from "./endpoints/store";
import { ENDPOINT_TYPES, MAX_WORKERS, SCALER_TYPES } from "./endpoints/rules";
import { MAX_RELEASES, releaseId } from "./endpoints/releases";

/** The account-level discount reported by `myself { serverlessDiscount }`. */
export interface ServerlessDiscount {
  discountFactor: number;
  type: string;
  expirationDate: string | null;
}

const workerSchema = z.object({
  id: z.string(),
  createdAt: z.number(),
  drainingSince: z.number().nullable(),
  // Absent before workers took jobs; a held job (`jobId`) is not kept: jobs live in memory only.
  readyAt: z.number().optional(),
  idleSince: z.number().optional(),
  // Absent before releases: the endpoint's version and its template's image (see EndpointStore.load).
  version: z.number().int().min(1).optional(),
  image: z.string().nullable().optional(),
  cannotStart: z.boolean().optional(),
  replacing: z.boolean().optional(),
  retiring: z.boolean().optional(),
});
const releaseSchema = z.object({
  id: z.string().min(1),
  version: z.number().int().min(1),
  createdAt: z.number(),
  // A change from or to nothing (a field first set, or cleared) may be written without its side:
  // it reads null, as the releases read answers it.
  diff: z.array(z.object({ field: z.string(), old: z.unknown().optional(), new: z.unknown().optional() }).transform((d) => ({ field: d.field, old: d.old ?? null, new: d.new ?? null }))),
});
const endpointSchemaZ = z.object({
  id: z.string().min(1),
  name: z.string(),
  gpuIds: z.string().min(1),
  templateId: z.string(),
  type: z.enum(ENDPOINT_TYPES),
  idleTimeout: z.number().int().min(0),
  // "" meant none before it was stored as null ("null when none").
  locations: z.string().nullable().transform((v) => (v === "" ? null : v)),
  // PRIORITY_FLASHBOOT is REST's own; GraphQL reads it as FLASHBOOT (see view()).
  flashBootType: z.enum(["OFF", "FLASHBOOT", "PRIORITY_FLASHBOOT"]),
  scalerType: z.enum(SCALER_TYPES),
  // One stored value: a number over REST (>= 0.5), shown rounded up over GraphQL.
  scalerValue: z.number().min(0),
  workersMin: z.number().int().min(0).max(MAX_WORKERS),
  workersMax: z.number().int().min(0).max(MAX_WORKERS),
  networkVolumeId: z.string().nullable().transform((v) => (v === "" ? null : v)),
  // Absent from state files written before the fields existed: the platform's defaults.
  gpuCount: z.number().int().min(1).default(1),
  executionTimeoutMs: z.number().int().min(0).default(300000),
  // Absent in state files written before REST v2 served endpoints.
  dataCenterIds: z.array(z.string()).default([]),
  createdAt: z.number(),
  workers: z.array(workerSchema),
  // Absent before releases: version 1, its one release made with the endpoint.
  version: z.number().int().min(1).default(1),
  image: z.string().nullable().optional(),
  releases: z.array(releaseSchema).max(MAX_RELEASES).optional(),
}).transform((ep) => ({ ...ep, releases: ep.releases ?? [{ id: releaseId(ep.id, 1), version: 1, createdAt: ep.createdAt, diff: [] }] }));
export const snapshotSchema = z.object({
  version: z.literal(1),
  idCounter: z.number().int().min(0),
  workerCounter: z.number().int().min(0),
  runCounter: z.number().int().min(0),
  serverlessDiscount: z
    .object({
      discountFactor: z.number(),
      type: z.string(),
      expirationDate: z.string().nullable(),
    })
    .nullable(),
  endpoints: z
    .array(endpointSchemaZ)
    .refine((eps) => new Set(eps.map((e) => e.id)).size === eps.length, "endpoint ids repeat"),
});
/** All state of the service as plain JSON (`restore` checks it against `snapshotSchema`). */
export interface ServerlessSnapshot {
  version: 1;
  idCounter: number;
  workerCounter: number;
  runCounter: number;
  serverlessDiscount: ServerlessDiscount | null;
  endpoints: EndpointRecord[];
}
