import { LOGICAL_NAME_KEY } from "../../../../src/resources/lifecycle/owner";
import { checkNetworkVolume } from "../../../../src/resources/network-volume/schema";

test("NetworkVolume check refuses a property it does not have, naming it", () => {
  const r = checkNetworkVolume(undefined, { __provider: "shim", [LOGICAL_NAME_KEY]: "data", size: 50, dataCenter: "EU-RO-1", sizee: 60 });
  expect(r.failures).toEqual([expect.objectContaining({ reason: expect.stringMatching(/sizee/) })]);
});
