// Every property of each resource's code (its zod schema, the list the generated preview check
// draws from) is named, in backticks, in the "Update or replace" section of its docs page: a
// property added to a kind without saying what a change of it does fails here.
import { networkVolumeArgsSchema } from "../../../src/resources/network-volume/schema";
import { podArgsSchema } from "../../../src/resources/pod/schema";
import { registryCredentialArgsSchema } from "../../../src/resources/registry-credential/schema";
import { endpointInputsSchema as serverlessEndpointSchema } from "../../../src/resources/serverless-endpoint/schema";
import { templateArgsSchema } from "../../../src/resources/template/schema";
import { docsUpdateSection } from "../../helpers/docs-tables";

describe.each([
  ["Pod", Object.keys(podArgsSchema.shape)],
  ["ServerlessEndpoint", Object.keys(serverlessEndpointSchema.shape)],
  ["NetworkVolume", Object.keys(networkVolumeArgsSchema.shape)],
  ["Template", Object.keys(templateArgsSchema.shape)],
  ["RegistryCredential", Object.keys(registryCredentialArgsSchema.shape)],
])("%s: the docs say what a change of each property does", (kind, properties) => {
  const named = new Set([...docsUpdateSection(kind).matchAll(/`([A-Za-z]+)[^`]*`/g)].map((m) => m[1]));
  test.each(properties)("%s", (property) => {
    expect({ property, named: named.has(property) }).toEqual({ property, named: true });
  });
});
