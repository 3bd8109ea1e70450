// Each example has a README that says what it shows, names every stack config key its program
// reads, and gives the one command that runs it against the embedded emulator; `.ci/run` runs
// that command for every example.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(__dirname, "../../..");
const examples = readdirSync(join(ROOT, "examples")).filter((e) => existsSync(join(ROOT, "examples", e, "index.ts")));

// `<namespace>:<key>` for every config.get/require of the program and its modules, namespace from `new pulumi.Config("ns")`.
function configKeys(example: string): string[] {
  const dir = join(ROOT, "examples", example);
  const text = readdirSync(dir)
    .filter((f) => f.endsWith(".ts"))
    .map((f) => readFileSync(join(dir, f), "utf8"))
    .join("\n");
  const ns = /new pulumi\.Config\("([^"]+)"\)/.exec(text)?.[1];
  const direct = [...text.matchAll(/config\.(?:get|getNumber|getBoolean|require|requireSecret|getSecret|requireNumber)\("([^"]+)"\)/g)].map((m) => m[1]!);
  // promotion reads through parsePromotionConfig(get): get("key").
  const viaSchema = [...text.matchAll(/\bget\("([^"]+)"\)/g)].map((m) => m[1]!);
  return [...new Set([...direct, ...viaSchema])].map((k) => `${ns}:${k}`);
}

test("there are examples", () => {
  expect(examples).toEqual(expect.arrayContaining(["quickstart", "cpu-pod", "private-image", "promotion"]));
});

test.each(examples)("examples/%s has a README with its config and its one command", (example) => {
  const readme = join(ROOT, "examples", example, "README.md");
  expect(existsSync(readme)).toBe(true);
  const text = readFileSync(readme, "utf8");
  expect(text).toContain(`npm run example -- ${example}`);
  const keys = configKeys(example);
  expect(keys.length).toBeGreaterThan(0);
  for (const key of keys) expect(text).toContain(key);
});

test(".ci/run runs every example's command", () => {
  const ci = readFileSync(join(ROOT, ".ci/run"), "utf8");
  expect(ci).toMatch(/npm run -s example(:built)? -- \$args/);
  expect(ci).toContain("ls -d */");
});
