// Every property of every resource's Args says, in its JSDoc (what the API reference and an
// editor's hover show), what it does, its default when it may be left out, and what a change
// does: replaces, or updates in place (with or without a request). The verdicts themselves are
// checked against the planning code by the update-versus-replace tables' tests.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

const SRC = join(__dirname, "../../../src/resources");
const KINDS = {
  Pod: "pod",
  ServerlessEndpoint: "serverless-endpoint",
  NetworkVolume: "network-volume",
  Template: "template",
  RegistryCredential: "registry-credential",
} as const;

/** A change verdict, in the words the docs use. */
const VERDICT = /\breplaces?\b|\bin\s+place\b/i;

interface PropertyDoc {
  name: string;
  optional: boolean;
  text: string;
  defaultTag: string | undefined;
}

function argsDocs(kind: keyof typeof KINDS): PropertyDoc[] {
  const file = join(SRC, KINDS[kind], "index.ts");
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const decl = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === `${kind}Args`);
  if (!decl) throw new Error(`${file} declares no ${kind}Args`);
  return decl.members.filter(ts.isPropertySignature).map((member) => {
    const docs = ts.getJSDocCommentsAndTags(member).filter(ts.isJSDoc);
    const text = docs.map((d) => ts.getTextOfJSDocComment(d.comment) ?? "").join(" ").trim();
    const tag = docs.flatMap((d) => d.tags ?? []).find((t) => t.tagName.text === "default");
    return {
      name: (member.name as ts.Identifier).text,
      optional: member.questionToken !== undefined,
      text,
      defaultTag: tag ? (ts.getTextOfJSDocComment(tag.comment) ?? "").trim() : undefined,
    };
  });
}

describe.each(Object.keys(KINDS) as (keyof typeof KINDS)[])("%sArgs", (kind) => {
  const props = argsDocs(kind);

  test("has documented properties", () => {
    expect(props.length).toBeGreaterThan(2);
  });

  test.each(props.map((p) => [p.name, p] as const))("%s: what it does, its default, what a change does", (_name, p) => {
    const problems: string[] = [];
    if (p.text.length < 20) problems.push("no description");
    if (p.optional && !p.defaultTag) problems.push("optional but no @default");
    if (!VERDICT.test(`${p.text} ${p.defaultTag ?? ""}`)) problems.push('no change verdict ("replaces" or "in place")');
    expect(problems).toEqual([]);
  });
});
