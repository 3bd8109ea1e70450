// contract/ holds the structural copy of the platform's public REST v2 contract that the
// contract tests read (test/helpers/contract.ts). scripts/contract/snapshot.ts makes it from the
// authority's location (a file or a URL): the same input gives the same bytes, prose goes,
// everything a check reads stays, and the README beside it names the source and the date.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { readme, snapshot, SOURCE } from "../../../scripts/contract/snapshot";
import { CONTRACT_FILE } from "../../helpers/contract";

const ROOT = path.resolve(__dirname, "../../..");
const COPY = fs.readFileSync(path.join(ROOT, "contract/public-v2-openapi.json"), "utf8");
const copy = JSON.parse(COPY);
const run = promisify(execFile);

test("the contract tests read the copy in the repository", () => {
  expect(path.relative(ROOT, CONTRACT_FILE)).toBe(path.join("contract", "public-v2-openapi.json"));
});

test("the copy names its source and publication date, and its README says the same", () => {
  expect(copy["x-snapshot"]).toMatchObject({ source: SOURCE, published: "2026-07-22" });
  expect(fs.readFileSync(path.join(ROOT, "contract/README.md"), "utf8")).toBe(readme(copy["x-snapshot"].published));
});

test("the copy is what the script makes of it: no prose was left and nothing was added by hand", () => {
  expect(snapshot(copy, copy["x-snapshot"].published)).toBe(COPY);
});

test("prose keywords go; names, bounds, formats, enums and example values stay", () => {
  const doc = {
    openapi: "3.1.0",
    info: { title: "T", version: "2", description: "lorem" },
    tags: [{ name: "Pods", description: "lorem" }],
    paths: {
      "/v2/things/{id}": {
        get: {
          summary: "lorem",
          description: "lorem",
          externalDocs: { url: "https://example.invalid" },
          parameters: [{ name: "id", in: "path", required: true, description: "lorem", schema: { type: "string" } }],
          responses: {
            "200": {
              description: "lorem",
              content: {
                "application/json": {
                  schema: { $ref: "#/components/schemas/Thing" },
                  examples: { one: { summary: "lorem", description: "lorem", value: { description: "data", summary: "data" } } },
                },
              },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        Thing: {
          type: "object",
          description: "lorem",
          required: ["description"],
          properties: {
            description: { type: "string", maxLength: 10, description: "lorem" },
            summary: { type: "integer", format: "int32", minimum: 1, maximum: 8, examples: [2] },
            kind: { enum: ["A", "B"], default: "A", description: "lorem" },
          },
        },
      },
    },
  };
  const out = JSON.parse(snapshot(doc, "2026-01-02"));
  expect(JSON.stringify(out)).not.toContain("lorem");
  expect(out.components.schemas.Thing).toEqual({
    type: "object",
    required: ["description"],
    properties: {
      description: { type: "string", maxLength: 10 },
      summary: { type: "integer", format: "int32", minimum: 1, maximum: 8, examples: [2] },
      kind: { enum: ["A", "B"], default: "A" },
    },
  });
  const op = out.paths["/v2/things/{id}"].get;
  expect(op.parameters).toEqual([{ name: "id", in: "path", required: true, schema: { type: "string" } }]);
  expect(op.responses["200"].content["application/json"].examples).toEqual({ one: { value: { description: "data", summary: "data" } } });
  expect(out["x-snapshot"].published).toBe("2026-01-02");
  expect(snapshot(doc, "2026-01-02")).toBe(snapshot(JSON.parse(JSON.stringify(doc)), "2026-01-02"));
  expect(() => snapshot(doc, "22 July")).toThrow(/--published must be a date/);
  expect(() => snapshot({ paths: {} }, "2026-01-02")).toThrow(/not an OpenAPI document/);
});

describe("the script, from a file and from a URL", () => {
  let dir: string;
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "contract-snapshot-"));
    server = http.createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(COPY));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/public-v2-openapi.json`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const script = (...args: string[]) =>
    run(process.execPath, ["--require", "./scripts/register-ts.js", "scripts/contract/snapshot.ts", ...args], { cwd: ROOT, timeout: 60_000 });
  const written = (out: string) => ["public-v2-openapi.json", "README.md"].map((f) => fs.readFileSync(path.join(out, f), "utf8"));

  test("run twice on a file: the same bytes, the repository's copy", async () => {
    const source = path.join(dir, "authority.json");
    fs.writeFileSync(source, COPY);
    await script(source, "--published", "2026-07-22", "--out", path.join(dir, "a"));
    await script(source, "--published", "2026-07-22", "--out", path.join(dir, "b"));
    expect(written(path.join(dir, "a"))).toEqual(written(path.join(dir, "b")));
    expect(written(path.join(dir, "a"))[0]).toBe(COPY);
  }, 60_000);

  test("from a URL, the same copy; the location is not written into it", async () => {
    await script(url, "--out", path.join(dir, "u"));
    const [json, text] = written(path.join(dir, "u"));
    expect(json).toBe(COPY);
    expect(json + text).not.toContain("127.0.0.1");
  }, 60_000);

  test("without a location it says how to call it", async () => {
    await expect(script()).rejects.toMatchObject({ stderr: expect.stringContaining("usage: snapshot.ts <file path or URL") });
  }, 60_000);
});
