// What an endpoint learns of the Template behind its templateId (template-ref.ts): a Template's
// own `id` output is found again, and nothing else is (a derived output, a plain string); the
// fingerprint of what its workers run names env variables but never holds a value, changes
// when a value does, and stays secret and unknown as its arguments are.
import * as pulumi from "@pulumi/pulumi";
import { CONTAINER_KEYS, noteTemplate, rollsOfArgs, templateBehind, templateRolls } from "../../../../src/resources/inputs/template-ref";

/** The value of an output, once known. */
const valueOf = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply((v) => (resolve(v), v)));
const internals = (o: pulumi.Output<unknown>) => o as unknown as { isSecret: Promise<boolean>; isKnown: Promise<boolean> };

const container = { image: "img:1", args: "", ports: ["8000/http"], env: { B: "2", A: "1" }, registry: null };

describe("templateRolls", () => {
  it("the container fields, env names sorted, a digest of names and values, and no value", () => {
    const rolls = templateRolls({ ...container, env: { TOKEN: "s3cr3t-value", A: "1" }, disk: 20 });
    expect(rolls).toEqual({ image: "img:1", args: "", disk: 20, ports: ["8000/http"], env: ["A", "TOKEN"], envDigest: expect.stringMatching(/^[0-9a-f]{16}$/), registry: null });
    expect(JSON.stringify(rolls)).not.toContain("s3cr3t-value");
  });

  it("a changed env value changes the digest; the order the program wrote the keys in does not", () => {
    const base = templateRolls(container).envDigest;
    expect(templateRolls({ ...container, env: { A: "1", B: "2" } }).envDigest).toBe(base);
    expect(templateRolls({ ...container, env: { A: "1", B: "3" } }).envDigest).not.toBe(base);
    // A value moved to another name is a change too.
    expect(templateRolls({ ...container, env: { A: "2", B: "1" } }).envDigest).not.toBe(base);
  });

  it("disk left to the platform is absent, not undefined; ports are copied", () => {
    const rolls = templateRolls(container);
    expect(Object.keys(rolls)).not.toContain("disk");
    rolls.ports.push("x");
    expect(container.ports).toEqual(["8000/http"]);
  });

  it("names exactly the container fields a change of which rolls the workers", () => {
    expect([...CONTAINER_KEYS]).toEqual(["image", "args", "disk", "ports", "env", "registry"]);
  });
});

describe("rollsOfArgs", () => {
  it("fills what the program left out as the Template's check does: no args, no ports, no env, no registry", async () => {
    const rolls = await valueOf(rollsOfArgs({ image: "img:2" }));
    expect(rolls).toEqual(templateRolls({ image: "img:2", args: "", ports: [], env: {}, registry: null }));
  });

  it("takes the arguments as outputs, and is secret when any of them is", async () => {
    const plain = rollsOfArgs({ image: pulumi.output("img:2"), env: { A: "1" }, disk: 30 });
    expect(await valueOf(plain)).toMatchObject({ image: "img:2", disk: 30, env: ["A"] });
    expect(await internals(plain).isSecret).toBe(false);
    const secret = rollsOfArgs({ image: "img:2", env: pulumi.secret({ A: "hidden" }) });
    expect(await internals(secret).isSecret).toBe(true);
    expect(JSON.stringify(await valueOf(secret))).not.toContain("hidden");
  });
});

describe("noteTemplate and templateBehind", () => {
  it("finds a Template by its own id output, and only by it", () => {
    const id = pulumi.output("tpl-1");
    const ref = { resourceName: "web", serverless: pulumi.output(true) };
    noteTemplate(id, ref);
    expect(templateBehind(id)).toBe(ref);
    expect(templateBehind(id.apply((v) => v))).toBeUndefined();
    expect(templateBehind(pulumi.output("tpl-1"))).toBeUndefined();
  });

  it("a string, null or nothing is no Template", () => {
    expect(templateBehind("tpl-1")).toBeUndefined();
    expect(templateBehind(null)).toBeUndefined();
    expect(templateBehind(undefined)).toBeUndefined();
  });
});
