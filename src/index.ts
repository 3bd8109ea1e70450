/**
 * Pulumi resources for the Compute Platform GPU cloud: {@link Pod}, {@link NetworkVolume},
 * {@link ServerlessEndpoint}, {@link Template} and {@link RegistryCredential}, the catalog and
 * billing look-ups, and the stack's cost ledger ({@link StackCost}). The typed client is
 * `pulumi-computeplatform/client`; a local emulator of the platform is
 * `pulumi-computeplatform/emulator`.
 *
 * @module pulumi-computeplatform
 */
export { dynamicProviders } from "./resources/kinds";
export { shimProvider, type ProviderKind } from "./resources/engine/shim";
export type { AccountInput } from "./resources/engine/account";
export * as client from "./client";
export { ComputePlatform } from "./client";
export { EndpointNotReadyError, runSyncSmokeTest, ServerlessEndpoint, ServerlessEndpointProvider, serverlessEndpointSchema, type ImageModelInput, type RunSyncSmokeTestArgs, type RunSyncSmokeTestResult, type ServerlessEndpointArgs, type ServerlessEndpointOutputs, type ServerlessEndpointProviderOptions } from "./resources/serverless-endpoint";
export { NetworkVolume, NetworkVolumeProvider, networkVolumeArgsSchema, type NetworkVolumeArgs, type NetworkVolumeOutputs, type NetworkVolumeProviderOptions } from "./resources/network-volume";
export { checkTemplate, Template, TemplateProvider, templateArgsSchema, type TemplateArgs, type TemplateCategory, type TemplateInputs, type TemplateOutputs, type TemplateProviderOptions } from "./resources/template";
export { RegistryCredential, RegistryCredentialProvider, registryCredentialArgsSchema, type RegistryCredentialArgs, type RegistryCredentialOutputs, type RegistryCredentialProviderOptions } from "./resources/registry-credential";
export { getBilling, getBillingOutput, getCpuFlavor, getCpuFlavorOutput, getCpuFlavorsOutput, getDataCenter, getDataCenterOutput, getDataCentersOutput, getGpuType, type InputFields, getGpuTypeOutput, getGpuTypesOutput, type BillingQuery } from "./resources/catalog";
export { getCpuFlavors, getDataCenters, getGpuTypes, validVcpuCounts, type CatalogOptions, type CpuFlavor, type DataCenter, type DataCenterFilter, type GpuType, type GpuTypeFilter } from "./resources/catalog";
export { checkPod, Pod, PodFailedError, PodInitError, PodProvider, podArgsSchema, planPodChange, type PodArgs, type PodInputs, type PodOutputs, type PodPlan, type PodProviderOptions } from "./resources/pod";
// Types the resources' properties and providers name, exported so a program can name them too.
export type { Cloud, DesiredStatus, WaitFor } from "./resources/pod/schema";
export type { EndpointInputs, EndpointRequestUrls, EndpointWorkerOutput, WorkerPrice } from "./resources/serverless-endpoint/schema";
export type { EndpointRolloutOutput } from "./resources/serverless-endpoint/outputs";
export type { NetworkVolumeInputs } from "./resources/network-volume/schema";
export type { RegistryCredentialInputs } from "./resources/registry-credential/schema";
export type { TemplateMountsInput } from "./resources/template/schema";
export { StackCost, STACK_COST_NAME, StackCostProvider, type StackCostProviderOptions, type StackCostState } from "./resources/stack-cost";
export type { CostEntry, EndpointEntry, PodEntry, PricedEntry } from "./resources/stack-cost";
export type { HourlyRange } from "./resources/cost/prices";
