// A pod from a private container image. The registry password (or access token) is a secret
// stack value, set with
//   pulumi config set --secret private-image:registryPassword <token>
// and it stays a secret all the way: encrypted in the state, never printed, never returned by
// the platform. A new token replaces the credential: the new one is made first, the pod moves
// to it in place, and the old one is deleted last.
import * as pulumi from "@pulumi/pulumi";
import { Pod, RegistryCredential } from "pulumi-computeplatform";

const config = new pulumi.Config("private-image");

const registry = new RegistryCredential("registry", {
  username: config.require("registryUsername"),
  password: config.requireSecret("registryPassword"),
});

const app = new Pod("app", {
  image: config.get("image") ?? "ghcr.io/acme/private-app:1.0",
  cpu: { id: "cpu3c", vcpuCount: 2 },
  ports: ["8080/http"],
  // The pod depends on the credential, so it is made after it and deleted before it.
  registry: registry.id,
});

export const registryId = registry.id;
export const podId = app.id;
export const podStatus = app.status;
