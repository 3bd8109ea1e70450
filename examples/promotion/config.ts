// The stack config of the promotion example, read once at program start and validated with
// zod, so a bad value stops `pulumi preview` before anything is planned, naming the key.
import { z } from "zod";

/** Serverless GPU tiers. */
export const GPU_TIERS = ["AMPERE_16", "AMPERE_24", "ADA_24", "AMPERE_48", "ADA_48_PRO", "AMPERE_80", "ADA_80_PRO"] as const;
/** Regions a Serverless endpoint can be restricted to. */
export const REGIONS = ["CZ", "FR", "GB", "NO", "RO", "US"] as const;

export type GpuTier = (typeof GPU_TIERS)[number];

/**
 * The pod GPU type that matches each Serverless tier, so one `gpuTier` key sizes both the
 * batch pod and the endpoint's workers.
 */
export const POD_GPU_FOR_TIER: Record<GpuTier, string> = {
  AMPERE_16: "NVIDIA RTX A6000",
  AMPERE_24: "NVIDIA RTX A6000",
  ADA_24: "NVIDIA GeForce RTX 4090",
  AMPERE_48: "NVIDIA RTX A6000",
  ADA_48_PRO: "NVIDIA L40S",
  AMPERE_80: "NVIDIA A100 80GB PCIe",
  ADA_80_PRO: "NVIDIA H100 80GB HBM3",
};

// Config values arrive as text; "" must not count as 0, so no z.coerce.
const count = (key: string) =>
  z.preprocess(
    (v) => (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : v),
    z
      .number({
        error: (iss) =>
          iss.input === undefined
            ? `${key} is required, e.g. 3`
            : `${key} must be a whole number, got ${JSON.stringify(iss.input)}`,
      })
      .int(`${key} must be a whole number`)
      .min(0, `${key} must be 0 or more`)
      .max(100, `${key} must be at most 100`),
  );

/** The keys every stack file must set, with their rules. */
export const promotionConfigSchema = z
  .object({
    imageTag: z
      .string({ error: "promotion:imageTag is required, e.g. 1.5.0" })
      .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/, "promotion:imageTag must be a container image tag (letters, digits, _ . -; at most 128)"),
    gpuTier: z.enum(GPU_TIERS, {
      error: (iss) =>
        iss.input === undefined
          ? `promotion:gpuTier is required: one of ${GPU_TIERS.join(", ")}`
          : `promotion:gpuTier must be one of ${GPU_TIERS.join(", ")}, got ${JSON.stringify(iss.input)}`,
    }),
    workersMin: count("promotion:workersMin"),
    workersMax: count("promotion:workersMax"),
    locations: z
      .array(
        z.enum(REGIONS, {
          error: (iss) => `promotion:locations must list regions from ${REGIONS.join(", ")}, got ${JSON.stringify(iss.input)}`,
        }),
        { error: "promotion:locations must be a list of regions, e.g. [US, RO]" },
      )
      .min(1, "promotion:locations must name at least one region")
      .refine((l) => new Set(l).size === l.length, "promotion:locations lists a region twice"),
    dataCenter: z
      .string({ error: "promotion:dataCenter is required, e.g. US-TX-3" })
      .regex(/^[A-Z]{2}-[A-Z]{2}-\d+$/, "promotion:dataCenter must be a data center id such as US-TX-3"),
    // Config values arrive as text: only "true" and "false" are a boolean.
    protectData: z.enum(["true", "false"], { error: "promotion:protectData must be true or false" }).transform((v) => v === "true"),
  })
  .refine((c) => c.workersMin <= c.workersMax, {
    message: "promotion:workersMin must not exceed promotion:workersMax",
    path: ["workersMin"],
  });

export type PromotionConfig = z.infer<typeof promotionConfigSchema>;

/** A stack config value that breaks a rule; the message names the key. */
export class PromotionConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid stack config:\n  ${problems.join("\n  ")}`);
    this.name = "PromotionConfigError";
  }
}

/**
 * Validate the raw config values (as `pulumi.Config.get` returns them: text, with lists as
 * JSON). Throws a {@link PromotionConfigError} listing every bad key at once.
 */
export function parsePromotionConfig(get: (key: string) => string | undefined): PromotionConfig {
  let locations: unknown;
  const rawLocations = get("locations");
  if (rawLocations !== undefined) {
    try {
      locations = JSON.parse(rawLocations);
    } catch {
      // A bare word (`pulumi config set promotion:locations US`) is a list of one.
      locations = rawLocations.split(",").map((s) => s.trim());
    }
  }
  const raw = {
    imageTag: get("imageTag"),
    gpuTier: get("gpuTier"),
    workersMin: get("workersMin"),
    workersMax: get("workersMax"),
    locations,
    dataCenter: get("dataCenter"),
    protectData: get("protectData"),
  };
  const parsed = promotionConfigSchema.safeParse(raw);
  if (!parsed.success) throw new PromotionConfigError(parsed.error.issues.map((i) => i.message));
  return parsed.data;
}
