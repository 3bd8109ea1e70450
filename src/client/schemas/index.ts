/**
 * zod schemas of the wire objects (after the platform's public REST v2 contract of
 * 2026-07-22, and its GraphQL and hosted-model APIs): the one source for both the types and the
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
export * from "./jobs";
