// The shape a stored pod must have for the emulator to serve it: checked when a state file is
// read, so a record that cannot be rendered (a status no pod has, a string where a number
// goes) stops the start naming it, as a torn file does, instead of failing every list later.
// Numbers are not bounded here: a record stored before a limit existed (gpu.count 2^32, disk
// 1e20) still loads, and view.ts renders it without allocating by it.

import { z } from "zod";
import type { PodRecord } from "./types";

const num = z.number();
const mount = z.looseObject({ size: num, path: z.string() });
const netMount = z.looseObject({ volumeId: z.string(), path: z.string() });

const podRecordSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  image: z.string(),
  args: z.string(),
  disk: num,
  ports: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  registry: z.string().nullable(),
  gpu: z.looseObject({ id: z.string(), count: num }).optional(),
  cpu: z.looseObject({ id: z.string(), vcpuCount: num }).optional(),
  mounts: z.looseObject({ persistent: mount.optional(), network: z.array(netMount).optional() }),
  cloud: z.enum(["SECURE", "COMMUNITY"]),
  dataCenterId: z.string(),
  locked: z.boolean(),
  globalIp: z.string().optional(),
  globalNetworkingWanted: z.boolean(),
  createdAt: num,
  startedAt: num.nullable(),
  status: z.enum(["PROVISIONING", "STARTING", "RUNNING", "EXITED", "ERROR", "TERMINATED"]),
  statusAt: num,
  failOnStart: z.boolean(),
  restartAt: num.optional(),
  publicIp: z.string(),
  publicPorts: z.array(num),
});

/** The stored pods of a state file, or an error naming the first record that cannot be served. */
export function readPodRecords(saved: unknown): PodRecord[] {
  if (!Array.isArray(saved)) throw new Error("state file: pods must be an array");
  return saved.map((value, i) => {
    const parsed = podRecordSchema.safeParse(value);
    if (parsed.success) {
      if (parsed.data.gpu === undefined && parsed.data.cpu === undefined) {
        throw new Error(`state file: pods[${i}] has neither gpu nor cpu; move the file away or remove the record`);
      }
      return parsed.data as PodRecord;
    }
    const issue = parsed.error.issues[0];
    const where = issue.path.length > 0 ? `.${issue.path.join(".")}` : "";
    const id = typeof (value as { id?: unknown })?.id === "string" ? ` (pod '${(value as { id: string }).id}')` : "";
    throw new Error(`state file: pods[${i}]${where}${id}: ${issue.message}; move the file away or remove the record`);
  });
}
