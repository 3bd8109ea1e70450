/**
 * zod schemas of the wire objects (spec section 2, open-parts, and the public REST v2
 * contract where those two are silent): the one source for both the types and the
 * validation, one file per area.
 */
export * from "./catalog";
export { type Cloud, CloudSchema, NetworkMountSchema, PersistentMountSchema } from "./common";
export * from "./endpoints";
export * from "./models";
export * from "./network-volumes";
export * from "./pods";
