export { dynamicProviders } from "./resources/engine/kinds";
export { shimProvider, type ProviderKind } from "./resources/engine/shim";
export * as client from "./client";
export { ComputePlatform } from "./client";
export { EndpointNotReadyError, runSyncSmokeTest, ServerlessEndpoint, ServerlessEndpointProvider, serverlessEndpointSchema, type ImageModelInput, type RunSyncSmokeTestArgs, type RunSyncSmokeTestResult, type ServerlessEndpointArgs, type ServerlessEndpointOutputs, type ServerlessEndpointProviderOptions } from "./resources/serverless-endpoint";
export { NetworkVolume, NetworkVolumeProvider, networkVolumeArgsSchema, type NetworkVolumeArgs, type NetworkVolumeOutputs, type NetworkVolumeProviderOptions } from "./resources/network-volume";
export { checkTemplate, Template, TemplateProvider, templateArgsSchema, type TemplateArgs, type TemplateCategory, type TemplateInputs, type TemplateOutputs, type TemplateProviderOptions } from "./resources/template";
export { getCpuFlavors, getDataCenters, getGpuTypes, validVcpuCounts, type CatalogOptions, type CpuFlavor, type DataCenter, type DataCenterFilter, type GpuType, type GpuTypeFilter } from "./resources/catalog";
export { checkPod, Pod, PodFailedError, PodInitError, PodProvider, podArgsSchema, planPodChange, type PodArgs, type PodInputs, type PodOutputs, type PodPlan, type PodProviderOptions } from "./resources/pod";
