// The contract's ContainerConfig and PersistentMount as check() applies them (container.ts), for
// every kind that carries a container: each message names the property as a program writes it,
// and the contract's bounds hold (disk >= 1, persistent size >= 10, ports as port/protocol with
// a port of 1 to 65535, env a map of strings, registry an id or null).
import { z } from "zod";
import {
  adoptId,
  adoptTarget,
  containerRules,
  nonEmpty,
  onlyKeys,
  PERSISTENT_MIN_GB,
  persistentMountRule,
} from "../../../../src/resources/inputs/container";

/** The messages of a value that breaks `schema` (none when it holds). */
const messages = (schema: z.ZodType, value: unknown) => {
  const r = schema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => i.message);
};
// Pulumi's marker of a value not known at preview.
const UNKNOWN_VALUE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

describe("containerRules", () => {
  it("image: required, a string, not empty", () => {
    expect(messages(containerRules.image, undefined)).toEqual(["image is required: a container image reference"]);
    expect(messages(containerRules.image, 5)).toEqual(["image must be a string"]);
    expect(messages(containerRules.image, "")).toEqual(["image must not be empty"]);
    expect(messages(containerRules.image, "img:1")).toEqual([]);
  });

  it("disk: a whole number of GB, at least 1", () => {
    expect(messages(containerRules.disk, "20")).toEqual(["disk must be a number of GB"]);
    expect(messages(containerRules.disk, 1.5)).toEqual(["disk must be a whole number of GB"]);
    expect(messages(containerRules.disk, 0)).toEqual(["disk must be at least 1 (GB)"]);
    expect(messages(containerRules.disk, 1)).toEqual([]);
  });

  it("ports: port/protocol, the port from 1 to 65535", () => {
    expect(messages(containerRules.ports, ["8888/http", "22/tcp", "1/udp", "65535/tcp"])).toEqual([]);
    for (const bad of ["0/tcp", "65536/tcp", "99999/tcp", "8888", "8888/", "/http", "08/tcp", "8888/HTTP", "8888/http/x", " 22/tcp"]) {
      expect(messages(containerRules.ports, [bad])).toEqual([expect.stringMatching(/^port must be <port>\/<protocol> with a port from 1 to 65535/)]);
    }
    expect(messages(containerRules.ports, [22])).toEqual([expect.stringMatching(/^each port must be <port>\/<protocol>/)]);
    expect(messages(containerRules.ports, "22/tcp")).toEqual(["ports must be a list of strings"]);
  });

  it("env: a map of strings; args a string; registry an id or null", () => {
    expect(messages(containerRules.env, { A: "1" })).toEqual([]);
    expect(messages(containerRules.env, { A: 1 })).toEqual(["env values must be strings"]);
    expect(messages(containerRules.env, ["A=1"])).toEqual(["env must be a map of strings"]);
    expect(messages(containerRules.args, 1)).toEqual(["args must be a string"]);
    expect(messages(containerRules.registry, null)).toEqual([]);
    expect(messages(containerRules.registry, 7)).toEqual(["registry must be a registry credential ID or null"]);
  });
});

describe("persistentMountRule", () => {
  it("size: required, a whole number of GB, at least the contract's floor of 10", () => {
    expect(PERSISTENT_MIN_GB).toBe(10);
    expect(messages(persistentMountRule, { path: "/w" })).toEqual(["mounts.persistent.size is required"]);
    expect(messages(persistentMountRule, { size: "20", path: "/w" })).toEqual(["mounts.persistent.size must be a number of GB"]);
    expect(messages(persistentMountRule, { size: 10.5, path: "/w" })).toEqual(["mounts.persistent.size must be a whole number of GB"]);
    expect(messages(persistentMountRule, { size: 9, path: "/w" })).toEqual(["mounts.persistent.size must be at least 10 (GB)"]);
    expect(messages(persistentMountRule, { size: 10, path: "/w" })).toEqual([]);
  });

  it("path: a non-empty string; no other key", () => {
    expect(messages(persistentMountRule, { size: 10, path: "" })).toEqual(["mounts.persistent.path must not be empty"]);
    expect(messages(persistentMountRule, { size: 10 })).toEqual(["mounts.persistent.path must be a string"]);
    expect(messages(persistentMountRule, { size: 10, path: "/w", volumeId: "v", x: 1 })).toEqual([
      "mounts.persistent accepts only size and path; remove volumeId, x",
    ]);
  });
});

describe("onlyKeys, nonEmpty and adopt", () => {
  it("onlyKeys speaks only of unknown keys", () => {
    const f = onlyKeys("gpu", "id and count");
    expect(f({ code: "unrecognized_keys", keys: ["kind"] })).toBe("gpu accepts only id and count; remove kind");
    expect(f({ code: "unrecognized_keys" })).toBe("gpu accepts only id and count; remove ");
    expect(f({ code: "invalid_type" })).toBeUndefined();
  });

  it("nonEmpty and adoptId name what they check", () => {
    expect(messages(nonEmpty("name"), 1)).toEqual(["name must be a string"]);
    expect(messages(nonEmpty("name"), "")).toEqual(["name must not be empty"]);
    expect(messages(adoptId("pod"), undefined)).toEqual([]);
    expect(messages(adoptId("pod"), "")).toEqual(["adopt (the ID of an existing pod) must not be empty"]);
  });

  it("adoptTarget: the id to take over once known; none for empty, unknown or absent", () => {
    expect(adoptTarget({ adopt: "pod-1" })).toBe("pod-1");
    expect(adoptTarget({ adopt: "" })).toBeUndefined();
    expect(adoptTarget({ adopt: UNKNOWN_VALUE })).toBeUndefined();
    expect(adoptTarget({ adopt: 5 })).toBeUndefined();
    expect(adoptTarget({})).toBeUndefined();
    expect(adoptTarget(undefined)).toBeUndefined();
  });
});
