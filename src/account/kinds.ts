/** The kinds of an account, named as the resources are. */
export const KINDS = ["Pod", "ServerlessEndpoint", "NetworkVolume", "Template", "RegistryCredential"] as const;
export type Kind = (typeof KINDS)[number];
