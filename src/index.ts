export { dynamicProviders } from "./resources/providers";
export { shimProvider, type ProviderKind } from "./resources/shim";
export * as client from "./client";
export { ComputePlatform } from "./client";
