// The rules of the contract's ContainerConfig as check() applies them, written once
// for every kind that carries a container configuration (pods, templates). Each message names
// the property the way a program writes it.
import { z } from "zod";
import { isUnknown } from "./check";

/** What a port must be, after the name of the property that holds it. */
export const PORT_RULE = "must be <port>/<protocol> with a port from 1 to 65535, e.g. 8888/http or 22/tcp";
const PORT_PATTERN = /^([1-9][0-9]{0,4})\/([a-z]+)$/;

/** Whether `p` is a port the contract's ContainerConfig takes: `<port>/<protocol>`, the port from 1 to 65535. */
export const isPort = (p: string): boolean => PORT_PATTERN.test(p) && Number(PORT_PATTERN.exec(p)![1]) <= 65535;

/** A zod error for a strict object: names the keys to remove and the ones accepted. */
export function onlyKeys(what: string, allowed: string) {
  return (iss: { code?: string; keys?: string[] }) =>
    iss.code === "unrecognized_keys" ? `${what} accepts only ${allowed}; remove ${(iss.keys ?? []).join(", ")}` : undefined;
}

export const nonEmpty = (what: string) => z.string({ error: `${what} must be a string` }).min(1, `${what} must not be empty`);
/** Every kind's `adopt`: the ID of an existing object to take over (lifecycle/adopt.ts). */
export const adoptId = (noun: string) => nonEmpty(`adopt (the ID of an existing ${noun})`).optional();

/** The id checked inputs ask to adopt (lifecycle/adopt.ts), once it is known. */
export function adoptTarget(inputs: unknown): string | undefined {
  const id = (inputs as { adopt?: unknown } | undefined)?.adopt;
  return typeof id === "string" && id !== "" && !isUnknown(id) ? id : undefined;
}

/** Smallest persistent mount, in GB (the contract's PersistentMount). */
export const PERSISTENT_MIN_GB = 10;

/** Field rules of ContainerConfig; the kind decides which are optional and what wraps `env`. */
export const containerRules = {
  image: z
    .string({ error: (iss) => (iss.input === undefined ? "image is required: a container image reference" : "image must be a string") })
    .min(1, "image must not be empty"),
  args: z.string({ error: "args must be a string" }),
  disk: z.number({ error: "disk must be a number of GB" }).int("disk must be a whole number of GB").min(1, "disk must be at least 1 (GB)"),
  ports: z.array(
    z.string({ error: `each port ${PORT_RULE}` }).refine(isPort, `port ${PORT_RULE}`),
    { error: "ports must be a list of strings" },
  ),
  env: z.record(z.string(), z.string({ error: "env values must be strings" }), { error: "env must be a map of strings" }),
  registry: z.string({ error: "registry must be a registry credential ID or null" }).nullable(),
};

/** `mounts.persistent`: host-local storage of at least 10 GB at a path. */
export const persistentMountRule = z.strictObject(
  {
    size: z
      .number({ error: (iss) => (iss.input === undefined ? "mounts.persistent.size is required" : "mounts.persistent.size must be a number of GB") })
      .int("mounts.persistent.size must be a whole number of GB")
      .min(PERSISTENT_MIN_GB, `mounts.persistent.size must be at least ${PERSISTENT_MIN_GB} (GB)`),
    path: nonEmpty("mounts.persistent.path"),
  },
  { error: onlyKeys("mounts.persistent", "size and path") },
);
