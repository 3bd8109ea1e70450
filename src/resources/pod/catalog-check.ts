/*
 * What the catalog says of a Pod's compute, checked in check() without a write: a GPU type or
 * CPU flavor it does not list, a count or vCPU count it does not offer. Only a new or changed
 * compute is checked, against the lists the provider reads once per deployment.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { CpuType, GpuType } from "../../client";
import { didYouMean } from "../inputs/arguments";
import { containsUnknown, gpuChoices } from "../inputs/check";
import { canonical } from "../lifecycle/applied";
import type { PodInputs } from "./schema";

/** Whether the compute (gpu, cpu, cloud) is new or changed and known: only then is it checked against the catalog. */
export function computeChanged(olds: Record<string, unknown> | undefined, inputs: Pick<PodInputs, "gpu" | "cpu" | "cloud">): boolean {
  const compute = (v: any) => canonical({ gpu: v?.gpu, cpu: v?.cpu, cloud: v?.cloud });
  return !containsUnknown([inputs.gpu, inputs.cpu, inputs.cloud]) && compute(olds) !== compute(inputs);
}

/** A refusal of an id the catalog does not list: the id it was probably meant to be, from the same list, and where the ids are. */
function notListed(what: string, id: string, listed: readonly { id: string }[], lister: string): string {
  const near = didYouMean(id, listed.map((x) => x.id));
  return `${what}; ${near ? `${near} (${lister} lists the ids)` : `see ${lister} for the ids`}`;
}

/**
 * What the platform would refuse at create, known from the catalog without a write: a `gpu.id`
 * or `cpu.id` it does not list, a `gpu.count` above the type's `maxCount` for the cloud, a
 * `vcpuCount` outside the flavor's range. `gpus`/`cpus` undefined: that list was not read.
 */
export function catalogFailures(inputs: Pick<PodInputs, "gpu" | "cpu" | "cloud">, gpus?: readonly GpuType[], cpus?: readonly CpuType[]): pulumi.dynamic.CheckFailure[] {
  const failures: pulumi.dynamic.CheckFailure[] = [];
  const cloud = inputs.cloud === "COMMUNITY" ? "community" : "secure";
  for (const id of inputs.gpu && gpus ? gpuChoices(inputs.gpu.id) : []) {
    const type = gpus!.find((g) => g.id === id);
    if (!type) failures.push({ property: "gpu.id", reason: notListed(`gpu.id "${id}" is not a GPU type of the catalog`, id, gpus!, "getGpuTypes()") });
    else if (type.maxCount[cloud] === 0) failures.push({ property: "cloud", reason: `${id} is not offered on ${inputs.cloud} cloud (its maxCount there is 0)` });
    else if (inputs.gpu!.count > type.maxCount[cloud]) {
      failures.push({ property: "gpu.count", reason: `gpu.count ${inputs.gpu!.count} is above the maxCount of ${id}: at most ${type.maxCount[cloud]} on ${inputs.cloud} cloud` });
    }
  }
  const flavor = inputs.cpu && cpus ? cpus.find((c) => c.id === inputs.cpu!.id) : undefined;
  if (inputs.cpu && cpus && !flavor) {
    failures.push({ property: "cpu.id", reason: notListed(`cpu.id "${inputs.cpu.id}" is not a CPU flavor of the catalog`, inputs.cpu.id, cpus, "getCpuFlavors()") });
  }
  else if (inputs.cpu && flavor && (inputs.cpu.vcpuCount < flavor.vcpu.min || inputs.cpu.vcpuCount > flavor.vcpu.max)) {
    failures.push({ property: "cpu.vcpuCount", reason: `cpu.vcpuCount ${inputs.cpu.vcpuCount} is outside what flavor ${flavor.id} allows: ${flavor.vcpu.min} to ${flavor.vcpu.max}` });
  }
  return failures;
}
