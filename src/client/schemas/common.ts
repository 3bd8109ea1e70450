import { z } from "zod";

/**
 * Building blocks shared by the wire schemas of every area. Response schemas are loose
 * (unknown extra fields pass, for forward compatibility) but strict about the fields the
 * platform and its contract require; request schemas are strict (the service rejects unknown
 * properties with 422, so we reject them first).
 */

export const int = () => z.number().int();

/**
 * Whether `n` is a power of two, for any safe integer: halving is exact in a double, where
 * `n & (n - 1)` would see only the low 32 bits (2^32 + 2 passed it).
 */
export function isPowerOfTwo(n: number): boolean {
  if (!Number.isSafeInteger(n) || n < 1) return false;
  let m = n;
  while (m % 2 === 0) m /= 2;
  return m === 1;
}

/** A vCPU count: an integer, at least 2, a power of two. */
export const vcpuCount = () => int().min(2).refine(isPowerOfTwo, "must be a power of two");
export const dateTime = () => z.iso.datetime({ offset: true });

export const CloudSchema = z.enum(["SECURE", "COMMUNITY"]);
export type Cloud = z.infer<typeof CloudSchema>;

/** `<port>/<protocol>`, e.g. `8888/http`. */
export const PortSchema = z.string().regex(/^\d{1,5}\/[a-z]+$/, "must be formatted <port>/<protocol>, e.g. 8888/http");
export const EnvSchema = z.record(z.string(), z.string());

/** The contract's ContainerConfig as an answer carries it (pods and templates). */
export const containerConfigFields = {
  image: z.string(),
  args: z.string(),
  disk: int(),
  ports: z.array(z.string()),
  env: EnvSchema,
  registry: z.string().nullable(),
};

/** The contract's ContainerConfig as a create or update sends it, every field optional. */
export const containerConfigParams = {
  image: z.string().min(1).optional(),
  args: z.string().optional(),
  disk: int().min(1).optional(),
  ports: z.array(PortSchema).optional(),
  env: EnvSchema.optional(),
  registry: z.string().nullable().optional(),
};

// Mounts as the wire answers them (pods; templates carry only `persistent`).
export const PersistentMountSchema = z.looseObject({ size: int(), path: z.string() });
export const NetworkMountSchema = z.looseObject({ volumeId: z.string(), path: z.string() });

// Mounts as a request sends them: the contract's PersistentMount (10 GB floor) and NetworkMount.
export const CreatePersistentMountSchema = z.strictObject({ size: int().min(10), path: z.string().min(1) });
export const CreateNetworkMountSchema = z.strictObject({ volumeId: z.string().min(1), path: z.string().min(1) });
