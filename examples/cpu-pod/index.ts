// A CPU pod with a network volume. CPU pods take no persistent (host-local) mount: a
// network volume is how their data outlives the pod.
import * as pulumi from "@pulumi/pulumi";
import { NetworkVolume, Pod } from "pulumi-computeplatform";

const config = new pulumi.Config("cpu-pod");
const dataCenter = config.get("dataCenter") ?? "EU-RO-1";

const volume = new NetworkVolume("datasets", { size: 20, dataCenter });

const etl = new Pod("etl", {
  image: "python:3.12-slim",
  args: "python -m http.server 8080",
  // Memory follows from the flavor (cpu3g: 4 GB per vCPU); it is an output, not an input.
  cpu: { id: config.get("flavor") ?? "cpu3g", vcpuCount: config.getNumber("vcpuCount") ?? 4 },
  disk: 20,
  ports: ["8080/http"],
  mounts: { network: [{ volumeId: volume.id, path: "/data" }] },
});

export const volumeId = volume.id;
export const podId = etl.id;
export const memoryGb = etl.cpu.apply((cpu) => cpu?.memory);
export const dataCenterId = etl.dataCenterId;
