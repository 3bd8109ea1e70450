import { UNKNOWN } from "../../../../src/resources/inputs/check";
import { LOGICAL_NAME_KEY } from "../../../../src/resources/lifecycle/owner";
import { templateFailure } from "../../../../src/resources/serverless-endpoint/schema";
import { checkTemplate, TEMPLATE_DEFAULTS, templateArgsSchema } from "../../../../src/resources/template/schema";

const base = { name: "worker", image: "worker:1" };

describe("Template check: every rule of CreateTemplateRequest, named by property", () => {
  test.each([
    ["valid, smallest", {}, []],
    ["everything set", { args: "--fast", disk: 30, ports: ["8888/http", "22/tcp"], env: { A: "1" }, registry: "reg-1", mounts: { persistent: { size: 10, path: "/w" } }, serverless: true, public: true, category: "AMD", deleteWaitSeconds: 0 }, []],
    ["image missing", { image: undefined }, ["image"]],
    ["image empty", { image: "" }, ["image"]],
    ["image not a string", { image: 5 }, ["image"]],
    ["name empty: auto-named", { name: "" }, []],
    ["name not a string", { name: 7 }, ["name"]],
    ["args not a string", { args: 1 }, ["args"]],
    ["disk 0", { disk: 0 }, ["disk"]],
    ["disk fractional", { disk: 1.5 }, ["disk"]],
    ["disk as text", { disk: "20" }, ["disk"]],
    ["port without protocol", { ports: ["8888"] }, ["ports[0]"]],
    ["port above 65535", { ports: ["22/tcp", "70000/tcp"] }, ["ports[1]"]],
    ["ports not a list", { ports: "8888/http" }, ["ports"]],
    ["env value not a string", { env: { A: 1 } }, ["env.A"]],
    ["env not a map", { env: "A=1" }, ["env"]],
    ["registry not a string", { registry: 3 }, ["registry"]],
    ["persistent size below 10", { mounts: { persistent: { size: 9, path: "/w" } } }, ["mounts.persistent.size"]],
    ["persistent size missing", { mounts: { persistent: { path: "/w" } } }, ["mounts.persistent.size"]],
    ["persistent path missing", { mounts: { persistent: { size: 20 } } }, ["mounts.persistent.path"]],
    ["persistent path empty", { mounts: { persistent: { size: 20, path: "" } } }, ["mounts.persistent.path"]],
    ["persistent extra key", { mounts: { persistent: { size: 20, path: "/w", kind: "x" } } }, ["mounts.persistent"]],
    ["network mount (templates take none)", { mounts: { network: [{ volumeId: "v", path: "/d" }] } }, ["mounts"]],
    ["serverless not a boolean", { serverless: "yes" }, ["serverless"]],
    ["public not a boolean", { public: 1 }, ["public"]],
    ["category outside the enum", { category: "INTEL" }, ["category"]],
    ["deleteWaitSeconds negative", { deleteWaitSeconds: -1 }, ["deleteWaitSeconds"]],
    ["deleteWaitSeconds above an hour", { deleteWaitSeconds: 3601 }, ["deleteWaitSeconds"]],
    ["deleteWaitSeconds fractional", { deleteWaitSeconds: 1.5 }, ["deleteWaitSeconds"]],
    ["unknown property, named", { bogus: 1 }, ["bogus"]],
    ["two unknown properties, each named", { bogus: 1, templateId: "x" }, ["bogus", "templateId"]],
    ["unknowns at preview pass", { image: UNKNOWN, env: UNKNOWN, mounts: UNKNOWN, serverless: UNKNOWN }, []],
  ])("%s", (_label, over, failed) => {
    const news = { ...base, ...over } as Record<string, unknown>;
    for (const k of Object.keys(news)) if (news[k] === undefined) delete news[k];
    const r = checkTemplate({}, news);
    expect((r.failures ?? []).map((f) => f.property)).toEqual(failed);
    for (const f of r.failures ?? []) expect(f.reason).toContain(f.property.replace(/\[\d+\]$/, "").split(".")[0] === "ports" ? "port" : f.property.split(/[.[]/)[0]);
  });

  test("unknown property: the reason names it and the nearest one", () => {
    const [f] = checkTemplate({}, { ...base, imagee: "x" }).failures!;
    expect(f).toEqual({ property: "imagee", reason: "imagee is not a Template argument; did you mean image?" });
  });

  test("defaults filled, so writing one and leaving it out check the same", () => {
    const left = checkTemplate({}, { ...base }).inputs!;
    const written = checkTemplate({}, { ...base, ...TEMPLATE_DEFAULTS, deleteWaitSeconds: 120 }).inputs!;
    expect(left).toEqual(written);
    expect(left).toMatchObject({ args: "", ports: [], env: {}, registry: null, serverless: false, public: false, category: "NVIDIA", deleteWaitSeconds: 120 });
    expect(left).not.toHaveProperty("disk");
    expect(left).not.toHaveProperty("mounts");
  });

  test("mounts {} and { persistent: undefined } mean no mount", () => {
    expect(checkTemplate({}, { ...base, mounts: {} }).inputs).not.toHaveProperty("mounts");
    expect(checkTemplate({}, { ...base, mounts: { persistent: null } }).inputs).not.toHaveProperty("mounts");
  });

  test("auto-name: logical name plus 7 hex, kept from the old inputs", () => {
    const first = checkTemplate({}, { image: "i", [LOGICAL_NAME_KEY]: "worker" }).inputs!;
    expect(first.name).toMatch(/^worker-[0-9a-f]{7}$/);
    expect(checkTemplate(first as any, { image: "j", [LOGICAL_NAME_KEY]: "worker" }).inputs!.name).toBe(first.name);
  });

  test("hidden inputs of the class are not the user's", () => {
    const r = checkTemplate({}, { ...base, __provider: "x", [LOGICAL_NAME_KEY]: "w", __project: "p", __stack: "s", __organization: "o" });
    expect(r.failures).toEqual([]);
  });
});

describe("Template check: each failure's reason names the field and the rule", () => {
  const WAIT_RULE = "deleteWaitSeconds must be a whole number of seconds from 0 to 3600";
  test.each([
    ["name not a string", { name: 7 }, "name", "name must be a string"],
    ["serverless not a boolean", { serverless: "yes" }, "serverless", "serverless must be true or false"],
    ["public not a boolean", { public: 1 }, "public", "public must be true or false"],
    ["category outside the enum", { category: "INTEL" }, "category", 'category must be one of CPU, NVIDIA, AMD (got "INTEL")'],
    ["deleteWaitSeconds negative", { deleteWaitSeconds: -1 }, "deleteWaitSeconds", WAIT_RULE],
    ["deleteWaitSeconds above an hour", { deleteWaitSeconds: 3601 }, "deleteWaitSeconds", WAIT_RULE],
    ["deleteWaitSeconds fractional", { deleteWaitSeconds: 1.5 }, "deleteWaitSeconds", WAIT_RULE],
    ["deleteWaitSeconds as text", { deleteWaitSeconds: "60" }, "deleteWaitSeconds", WAIT_RULE],
    ["a network mount", { mounts: { network: [{ volumeId: "v", path: "/d" }] } }, "mounts", "mounts accepts only persistent (templates take no network mount); remove network"],
    ["adopt empty", { adopt: "" }, "adopt", "adopt (the ID of an existing template) must not be empty"],
  ])("%s", (_label, over, property, reason) => {
    expect(checkTemplate({}, { ...base, ...over }).failures).toEqual([{ property, reason }]);
  });

  test("deleteWaitSeconds at its bounds is kept", () => {
    expect(checkTemplate({}, { ...base, deleteWaitSeconds: 0 }).inputs!.deleteWaitSeconds).toBe(0);
    expect(checkTemplate({}, { ...base, deleteWaitSeconds: 3600 }).failures).toEqual([]);
  });

  test("the exported schema, used on its own, names the properties to remove and refuses an empty name", () => {
    const inputs = checkTemplate({}, base).inputs!;
    const extra = templateArgsSchema.safeParse({ ...inputs, bogus: 1 });
    expect(extra.error?.issues.map((i) => i.message)).toEqual(["Template accepts only the properties of TemplateArgs; remove bogus"]);
    const unnamed = templateArgsSchema.safeParse({ ...inputs, name: "" });
    expect(unnamed.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([["name", "name must not be empty"]]);
  });
});

describe("Template check: what it writes in", () => {
  test("without a logical name, a missing name is made from the kind", () => {
    expect(checkTemplate(undefined, { image: "i" }).inputs!.name).toMatch(/^template-[0-9a-f]{7}$/);
  });

  test("a property given as null takes its default, deleteWaitSeconds too", () => {
    const r = checkTemplate({}, { ...base, args: null, ports: null, serverless: null, category: null, deleteWaitSeconds: null, disk: null, registry: null });
    expect(r.failures).toEqual([]);
    expect(r.inputs).toEqual(checkTemplate({}, base).inputs);
  });

  test("a written value is kept over its default", () => {
    const inputs = checkTemplate({}, { ...base, args: "--x", serverless: true, category: "CPU", registry: "reg-1", deleteWaitSeconds: 5 }).inputs!;
    expect(inputs).toMatchObject({ args: "--x", serverless: true, category: "CPU", registry: "reg-1", deleteWaitSeconds: 5 });
  });

  test("a mount's absent entries are dropped, its given ones kept", () => {
    const persistent = { size: 10, path: "/w" };
    expect(checkTemplate({}, { ...base, mounts: { persistent, network: null } }).inputs!.mounts).toEqual({ persistent });
    expect(checkTemplate({}, { ...base, mounts: UNKNOWN }).inputs!.mounts).toBe(UNKNOWN);
  });
});

describe("ServerlessEndpoint check of the Template behind templateId", () => {
  test.each([
    ["known pod template", { resourceName: "pod-tpl", serverless: false }, true],
    ["serverless template", { resourceName: "w", serverless: true }, false],
    ["unknown at preview", { resourceName: "w", serverless: UNKNOWN }, false],
    ["no Template behind the id", undefined, false],
  ])("%s", (_label, ref, fails) => {
    const f = templateFailure(ref);
    if (!fails) return expect(f).toBeUndefined();
    expect(f).toEqual({ property: "templateId", reason: expect.stringContaining('Template "pod-tpl", which is not serverless') });
  });
});
