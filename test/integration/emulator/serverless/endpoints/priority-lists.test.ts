// Issue 14 #8, the emulator's half: saveEndpoint accepts and refuses exactly the strings of
// the shared table (BAD_USER_INPUT naming the field), and stores what it accepts unchanged.
// Through the client too: what the client accepts, it sends as given and reads back.
import { ComputePlatform, PacingRegistry } from "../../../../../src/client";
import { type Emulator, startEmulator } from "../../../../../src/emulator";
import { createServerlessTemplate } from "../../../../helpers/emulator-fixtures";
import { PRIORITY_LIST_CASES } from "../../../../helpers/priority-lists";

const KEY = "cp_test_lists_0123456789";
let emu: Emulator;
let TPL: string;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, keys: [{ key: KEY, scopes: ["read", "write"] }], quotas: { minute: 100000, hour: 1000000, day: 10000000 } });
  TPL = await createServerlessTemplate(emu.url, KEY);
});

afterAll(async () => {
  await emu?.close();
});

async function save(field: string, value: string) {
  const input = { name: "lists", gpuIds: "ADA_24", templateId: TPL, workersMax: 0, [field]: value };
  const res = await fetch(`${emu.url}/graphql?api_key=${KEY}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      query: "mutation ($input: EndpointInput!) { saveEndpoint(input: $input) { id gpuIds locations } }",
      variables: { input },
    }),
  });
  return (await res.json()) as any;
}

test.each(PRIORITY_LIST_CASES.map((c) => [c.field, JSON.stringify(c.value), c.ok ? "accepted" : "refused", c.reason, c] as const))(
  "saveEndpoint: %s %s is %s (%s)",
  async (_f, _v, _o, _r, c) => {
    const r = await save(c.field, c.value);
    if (c.ok) {
      expect(r.errors).toBeUndefined();
      // "" means any region and reads null ("null when none").
      expect(r.data.saveEndpoint[c.field]).toBe(c.value === "" ? null : c.value);
    } else {
      expect(r.errors[0].extensions.code).toBe("BAD_USER_INPUT");
      expect(r.errors[0].message).toContain(`input.${c.field} ${JSON.stringify(c.value)}`);
    }
  },
);

test("every string the client accepts, it sends as given and the emulator stores unchanged (\"\" as null: none)", async () => {
  const cp = new ComputePlatform({ apiKey: KEY, apiUrl: emu.url, pacing: new PacingRegistry(), env: {} });
  try {
    for (const c of PRIORITY_LIST_CASES.filter((x) => x.ok)) {
      const ep = await cp.endpoints.save({ name: `c-${c.field}-${c.value}`, gpuIds: "ADA_24", templateId: TPL, workersMax: 0, [c.field]: c.value });
      expect(ep[c.field]).toBe(c.value === "" ? null : c.value);
    }
  } finally {
    await cp.close();
  }
});
