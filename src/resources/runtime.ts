import type * as pulumi from "@pulumi/pulumi";
import { ComputePlatform } from "../client";

/**
 * Credentials and addresses for the providers, read at run time inside the plugin:
 * stack config (delivered through the provider's `configure()`), then the environment,
 * then the client's defaults. Nothing here is captured when the program runs, so no
 * secret reaches `__provider` in state.
 */
export interface PlatformSettings {
  apiKey?: string;
  apiUrl?: string;
  serverlessUrl?: string;
}

let settings: PlatformSettings = {};
let client: ComputePlatform | undefined;

/** Config keys under the `computeplatform` namespace. */
export const CONFIG_KEYS = {
  apiKey: "computeplatform:apiKey",
  apiUrl: "computeplatform:apiUrl",
  serverlessUrl: "computeplatform:serverlessUrl",
} as const;

/** Called from each provider's `configure()` with the stack's config. */
export function configureFromStack(config: pulumi.dynamic.Config): void {
  const next: PlatformSettings = {
    apiKey: config.get(CONFIG_KEYS.apiKey) || undefined,
    apiUrl: config.get(CONFIG_KEYS.apiUrl) || undefined,
    serverlessUrl: config.get(CONFIG_KEYS.serverlessUrl) || undefined,
  };
  setPlatformSettings(next);
}

/** Replace the settings (tests, or a program that configures in-process). */
export function setPlatformSettings(next: PlatformSettings): void {
  settings = { ...next };
  client = undefined;
}

/**
 * The one client of this process. Every provider shares it, so rate-limit pacing is one
 * budget per API key however many resources are in flight.
 */
export function platform(): ComputePlatform {
  client ??= new ComputePlatform({
    apiKey: settings.apiKey,
    apiUrl: settings.apiUrl,
    serverlessUrl: settings.serverlessUrl,
  });
  return client;
}
