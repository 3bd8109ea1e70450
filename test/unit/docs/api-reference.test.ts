// The API reference (`npm run docs`, TypeDoc) opens on a page that says what to use, and its
// index module lists what a Pulumi program writes first, by group: resources, their arguments
// and outputs, look-ups, errors; the providers, checks, plans and `*Inputs` that Pulumi's
// plugin and the tools use sit last, in their own group. Every export of the package's entry
// carries a group TypeDoc knows, so a new export cannot land among the internals unnoticed.
// (`npm run docs` itself fails on any TypeDoc warning; `.ci/run` runs it.)
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(__dirname, "../../..");
const typedoc = JSON.parse(fs.readFileSync(path.join(ROOT, "typedoc.json"), "utf8"));
const INTERNAL = "Providers and checks";

/** Each export of src/index.ts with the `@group` of its declaration (undefined when none). */
function exportsWithGroups(): Map<string, string | undefined> {
  const entry = path.join(ROOT, "src/index.ts");
  const program = ts.createProgram([entry], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const out = new Map<string, string | undefined>();
  for (const symbol of checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(entry)!)!)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const declaration = target.declarations?.[0];
    // `export * as client` and the `ComputePlatform` of the client module are references to another module's page.
    if (!declaration || ts.isSourceFile(declaration) || declaration.getSourceFile().fileName.includes("/src/client/index.ts")) continue;
    const tags = ts.getJSDocTags(ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration);
    const group = tags.find((t) => t.tagName.text === "group");
    out.set(symbol.name, typeof group?.comment === "string" ? group.comment.trim() : undefined);
  }
  return out;
}

const exported = exportsWithGroups();

test("TypeDoc opens on the reference's landing page, and groups come in the order a user reads them", () => {
  expect(fs.existsSync(path.join(ROOT, typedoc.readme))).toBe(true);
  expect(typedoc.groupOrder[0]).toBe("Resources");
  expect(typedoc.groupOrder.at(-1)).toBe(INTERNAL);
});

test("every export of the package's entry is in a group of typedoc.json", () => {
  expect(exported.size).toBeGreaterThan(40);
  const outside = [...exported].filter(([, group]) => !group || !typedoc.groupOrder.includes(group)).map(([name, group]) => `${name}: ${group ?? "no @group"}`);
  expect(outside).toEqual([]);
});

test("providers, checks, plans and *Inputs are grouped apart from what a program writes", () => {
  const internal = [...exported].filter(([name]) => /Provider$|ProviderOptions$|Inputs$|Plan$|^check|^plan|Schema$|^shimProvider$|^dynamicProviders$/.test(name));
  expect(internal.map(([name]) => name)).toEqual(expect.arrayContaining(["PodProvider", "PodPlan", "StackCostProvider", "PodInputs"]));
  expect(internal.filter(([, group]) => group !== INTERNAL)).toEqual([]);
});

test("the landing page links every resource class, the client and the emulator", () => {
  const landing = fs.readFileSync(path.join(ROOT, typedoc.readme), "utf8");
  const links = [...landing.matchAll(/\{@link "([^"]+)"\.(\w+)/g)].map((m) => `${m[1]}.${m[2]}`);
  const resources = [...exported].filter(([, group]) => group === "Resources").map(([name]) => `pulumi-computeplatform.${name}`);
  expect(resources.length).toBeGreaterThanOrEqual(6);
  expect(links).toEqual(expect.arrayContaining([...resources, "pulumi-computeplatform/client.ComputePlatform", "pulumi-computeplatform/emulator.startEmulator"]));
});
