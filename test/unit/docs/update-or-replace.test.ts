// The update-or-replace tables of docs/network-volume.md, docs/template.md and
// docs/registry-credential.md say what the planning code does (Pod's and ServerlessEndpoint's
// are held to theirs beside their plan tests): every row is tied to changes here, each change
// gets the row's verdict, and no row is left untested.
import { planNetworkVolumeChange } from "../../../src/resources/network-volume/plan";
import type { NetworkVolumeOutputs } from "../../../src/resources/network-volume";
import { planRegistryCredentialChange } from "../../../src/resources/registry-credential/plan";
import type { RegistryCredentialOutputs } from "../../../src/resources/registry-credential";
import { planTemplateChange } from "../../../src/resources/template/plan";
import { type TemplateOutputs } from "../../../src/resources/template/schema";
import { docsTable } from "../../helpers/docs-tables";

type Plan = { replaces: string[]; updates: string[]; refused?: string };
/** For each docs row (its first cell): [property, old outputs, change to the matching inputs]. */
type Rows = Record<string, [string, object, Record<string, unknown>][]>;

const volume: NetworkVolumeOutputs = { id: "nv-1", name: "data-1", size: 50, dataCenter: "EU-RO-1", type: "STANDARD", deleteWaitSeconds: 120 };
const withMount: TemplateOutputs = {
  id: "tpl-1",
  name: "worker",
  image: "worker:1",
  args: "",
  disk: 20,
  mounts: { persistent: { size: 20, path: "/workspace" } },
  ports: [],
  env: {},
  registry: null,
  serverless: true,
  public: false,
  category: "NVIDIA",
  deleteWaitSeconds: 120,
};
const noMount: TemplateOutputs = { ...withMount, mounts: {} };
const credential: RegistryCredentialOutputs = { id: "reg-1", name: "ghcr-1", username: "bot", password: "token-1", deleteWaitSeconds: 120 };

const KINDS: [string, (olds: object, news: Record<string, unknown>) => Plan, Rows][] = [
  [
    "NetworkVolume",
    (o, n) => planNetworkVolumeChange(o as NetworkVolumeOutputs, n),
    {
      "`dataCenter`": [["dataCenter", volume, { dataCenter: "US-TX-3" }]],
      "`name`, a larger `size`": [
        ["name", volume, { name: "renamed" }],
        ["size", volume, { size: 80 }],
      ],
      "a smaller `size`": [["size", volume, { size: 20 }]],
      "`type` (`STANDARD` / `HIGH_PERFORMANCE`)": [["type", volume, { type: "HIGH_PERFORMANCE" }]],
      "`deleteWaitSeconds`": [["deleteWaitSeconds", volume, { deleteWaitSeconds: 30 }]],
    },
  ],
  [
    "Template",
    (o, n) => planTemplateChange(o as TemplateOutputs, n),
    {
      "`name`, `image`, `args`, `disk`, `ports`, `env`, `registry`, `serverless`, `public`, `category`": [
        ["name", withMount, { name: "renamed" }],
        ["image", withMount, { image: "worker:2" }],
        ["args", withMount, { args: "--serve" }],
        ["disk", withMount, { disk: 40 }],
        ["ports", withMount, { ports: ["8000/http"] }],
        ["env", withMount, { env: { A: "1" } }],
        ["registry", withMount, { registry: "reg-2" }],
        ["serverless", withMount, { serverless: false }],
        ["public", withMount, { public: true }],
        ["category", withMount, { category: "AMD" }],
      ],
      "`mounts.persistent`: added, or its `size` or `path` changed": [
        ["mounts", noMount, { mounts: { persistent: { size: 20, path: "/workspace" } } }],
        ["mounts", withMount, { mounts: { persistent: { size: 40, path: "/workspace" } } }],
        ["mounts", withMount, { mounts: { persistent: { size: 20, path: "/data" } } }],
      ],
      "`mounts.persistent` removed": [["mounts", withMount, { mounts: undefined }]],
      "`deleteWaitSeconds`": [["deleteWaitSeconds", withMount, { deleteWaitSeconds: 30 }]],
    },
  ],
  [
    "RegistryCredential",
    (o, n) => planRegistryCredentialChange(o as RegistryCredentialOutputs, n),
    {
      "`name`, `username`, `password`": [
        ["name", credential, { name: "ghcr-2" }],
        ["username", credential, { username: "other" }],
        ["password", credential, { password: "token-2" }],
      ],
      "`deleteWaitSeconds`": [["deleteWaitSeconds", credential, { deleteWaitSeconds: 30 }]],
    },
  ],
];

/** The inputs that describe exactly `olds` (outputs less the id), with `change` applied. */
function inputs(olds: object, change: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, ...rest } = olds as Record<string, unknown>;
  return { ...structuredClone(rest), ...change };
}

describe.each(KINDS)("docs page of %s", (kind, plan, rows) => {
  const table = docsTable(kind);

  test("every row is tied to changes here, and every row here is on the page", () => {
    expect(table.map((r) => r.row).sort()).toEqual(Object.keys(rows).sort());
  });

  test("the old state itself plans no change", () => {
    for (const [, olds] of Object.values(rows).flat()) expect(plan(olds, inputs(olds, {}))).toMatchObject({ replaces: [], updates: [] });
  });

  test.each(table)("$row: $verdict", ({ row, verdict }) => {
    for (const [property, olds, change] of rows[row] ?? []) {
      expect(row).toContain(`\`${property}`);
      const p = plan(olds, inputs(olds, change));
      if (verdict === "replace") expect(p.replaces).toContain(property);
      else if (verdict === "refuse") expect(p.refused).toEqual(expect.stringContaining(property));
      else expect({ replaces: p.replaces, updated: p.updates.includes(property), refused: p.refused }).toEqual({ replaces: [], updated: true, refused: undefined });
    }
  });
});
