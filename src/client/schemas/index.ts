/**
 * zod schemas of the wire objects (spec section 2, open-parts, and the public REST v2
 * contract where those two are silent): the one source for both the types and the
 * validation, one file per area.
 */
export * from "./billing";
export * from "./catalog";
export * from "./endpoints";
export * from "./models";
export * from "./network-volumes";
export * from "./pods";
export * from "./registries";
export * from "./serverless";
export * from "./templates";
export { type Cloud, CloudSchema, NetworkMountSchema, PersistentMountSchema } from "./common";
