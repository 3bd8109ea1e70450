export { dynamicProviders } from "./resources/providers";
export { shimProvider, type ProviderKind } from "./resources/shim";
