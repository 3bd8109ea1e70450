import { z } from "zod";
import { recordsOf } from "../core/records";
import { containerConfigFields, containerConfigParams, CreatePersistentMountSchema, PersistentMountSchema } from "./common";

/**
 * Templates (contract `Template`, `CreateTemplateRequest`, `UpdateTemplateRequest`): a saved
 * container configuration for pods or, with `serverless: true`, for endpoint workers.
 */

/** How the console groups a template; it does not affect hardware, scheduling or billing. */
export const TemplateCategorySchema = z.enum(["CPU", "NVIDIA", "AMD"]);
export type TemplateCategory = z.infer<typeof TemplateCategorySchema>;

/** Templates carry one persistent mount at most, never a network one. */
export const TemplateMountsSchema = z.looseObject({ persistent: PersistentMountSchema.optional() });
export type TemplateMounts = z.infer<typeof TemplateMountsSchema>;

export const TemplateSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  ...containerConfigFields,
  mounts: TemplateMountsSchema,
  serverless: z.boolean(),
  public: z.boolean(),
  category: TemplateCategorySchema,
});
export type Template = z.infer<typeof TemplateSchema>;

export const TemplateListSchema = z.looseObject({ templates: recordsOf(TemplateSchema) });

export const TemplateMountsParamsSchema = z.strictObject({ persistent: CreatePersistentMountSchema.optional() });
export type TemplateMountsParams = z.input<typeof TemplateMountsParamsSchema>;

// The fields of the contract's ContainerConfig plus the template's own, all optional here.
const templateFields = {
  ...containerConfigParams,
  mounts: TemplateMountsParamsSchema.optional(),
  serverless: z.boolean().optional(),
  public: z.boolean().optional(),
  category: TemplateCategorySchema.optional(),
};

export const TemplateCreateParamsSchema = z.strictObject({
  ...templateFields,
  name: z.string().min(1),
  image: z.string().min(1),
});
/** `serverless` and `public` default to false, `category` to NVIDIA. */
export type TemplateCreateParams = z.input<typeof TemplateCreateParamsSchema>;

/** PATCH: only the given fields change; `mounts` left out or `{}` keeps the mount. */
export const TemplateUpdateParamsSchema = z.strictObject({ ...templateFields, name: z.string().min(1).optional() });
export type TemplateUpdateParams = z.input<typeof TemplateUpdateParamsSchema>;
