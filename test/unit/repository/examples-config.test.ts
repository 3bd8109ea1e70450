// The promotion example's config check: both stack files pass, and each bad value is refused
// with a message that names the key and the rule.
import * as fs from "node:fs";
import * as path from "node:path";
import { parsePromotionConfig, PromotionConfigError } from "../../../examples/promotion/config";

const EXAMPLE = path.resolve(__dirname, "../../../examples/promotion");

// js-yaml is what @pulumi/pulumi parses YAML with; resolved through it, no new dependency.
const yaml: { load(text: string): any } = require(
  require.resolve("js-yaml", { paths: [path.dirname(require.resolve("@pulumi/pulumi/package.json"))] }),
);

/** Values of one stack file, as `config.get` returns them: text, lists as JSON. */
function stackValues(stack: string): Record<string, string> {
  const doc = yaml.load(fs.readFileSync(path.join(EXAMPLE, `Pulumi.${stack}.yaml`), "utf8"));
  return Object.fromEntries(
    Object.entries(doc.config as Record<string, unknown>).map(([k, v]) => [
      k.replace(/^promotion:/, ""),
      typeof v === "object" ? JSON.stringify(v) : String(v),
    ]),
  );
}

const parse = (values: Record<string, string | undefined>) => parsePromotionConfig((k) => values[k]);

function problems(values: Record<string, string | undefined>): string[] {
  try {
    parse(values);
  } catch (e) {
    if (e instanceof PromotionConfigError) return e.problems;
    throw e;
  }
  throw new Error("expected the config to be refused");
}

const dev = stackValues("dev");

test("both stack files hold the same keys and pass", () => {
  const prod = stackValues("prod");
  expect(Object.keys(dev).sort()).toEqual(["dataCenter", "gpuTier", "imageTag", "locations", "protectData", "workersMax", "workersMin"]);
  expect(Object.keys(prod).sort()).toEqual(Object.keys(dev).sort());
  expect(parse(dev)).toEqual({ imageTag: "1.5.0-rc.2", gpuTier: "ADA_24", workersMin: 0, workersMax: 2, locations: ["US"], dataCenter: "US-TX-3", protectData: false });
  expect(parse(prod)).toEqual({ imageTag: "1.4.2", gpuTier: "AMPERE_80", workersMin: 2, workersMax: 8, locations: ["US", "RO"], dataCenter: "US-TX-3", protectData: true });
});

test.each([
  ["gpuTier", { gpuTier: "H100" }, 'promotion:gpuTier must be one of AMPERE_16, AMPERE_24, ADA_24, AMPERE_48, ADA_48_PRO, AMPERE_80, ADA_80_PRO, got "H100"'],
  ["gpuTier missing", { gpuTier: undefined }, "promotion:gpuTier is required: one of AMPERE_16"],
  ["imageTag", { imageTag: "1.5 final" }, "promotion:imageTag must be a container image tag"],
  ["imageTag missing", { imageTag: undefined }, "promotion:imageTag is required"],
  ["workersMax text", { workersMax: "lots" }, 'promotion:workersMax must be a whole number, got "lots"'],
  ["workersMax empty", { workersMax: "" }, 'promotion:workersMax must be a whole number, got ""'],
  ["workersMin fraction", { workersMin: "1.5" }, "promotion:workersMin must be a whole number"],
  ["workersMin negative", { workersMin: "-1" }, "promotion:workersMin must be 0 or more"],
  ["workersMin above workersMax", { workersMin: "3", workersMax: "2" }, "promotion:workersMin must not exceed promotion:workersMax"],
  ["locations region", { locations: '["US","DE"]' }, 'promotion:locations must list regions from CZ, FR, GB, NO, RO, US, got "DE"'],
  ["locations empty", { locations: "[]" }, "promotion:locations must name at least one region"],
  ["locations repeated", { locations: '["US","US"]' }, "promotion:locations lists a region twice"],
  ["dataCenter", { dataCenter: "texas" }, "promotion:dataCenter must be a data center id such as US-TX-3"],
  ["dataCenter missing", { dataCenter: undefined }, "promotion:dataCenter is required"],
  ["protectData", { protectData: "yes" }, "promotion:protectData must be true or false"],
])("a bad %s is refused, naming the key", (_what, change, message) => {
  const found = problems({ ...dev, ...change });
  expect(found).toHaveLength(1);
  expect(found[0]).toContain(message);
});

test("every bad key is reported at once", () => {
  const found = problems({ ...dev, gpuTier: "H100", workersMax: "lots", locations: '["XX"]' });
  expect(found.map((p) => p.split(" ")[0]).sort()).toEqual(["promotion:gpuTier", "promotion:locations", "promotion:workersMax"]);
});

test("locations may be set as a bare comma-separated word list", () => {
  expect(parse({ ...dev, locations: "US,RO" }).locations).toEqual(["US", "RO"]);
});

test("no example asks for a templateId to paste: quickstart and promotion make their serverless Template", () => {
  for (const example of ["quickstart", "promotion"]) {
    const program = fs.readFileSync(path.resolve(__dirname, `../../../examples/${example}/index.ts`), "utf8");
    expect(program).not.toMatch(/config\.\w+\(\s*"templateId"/);
    expect(program).toMatch(/new Template\("[\w-]+", \{[^;]*serverless: true/);
    expect(program).toMatch(/templateId: worker\.id/);
  }
  expect(Object.keys(dev)).not.toContain("templateId");
});
