// Issue 14 #8, the client's half: its validators and its endpoint input schema accept and
// refuse exactly the strings of the shared table, and what they accept is what is sent.
import { schemas, validateGpuIds, validateLocations } from "../../../../src/client";
import { PRIORITY_LIST_CASES } from "../../../helpers/priority-lists";

const validators = { gpuIds: validateGpuIds, locations: validateLocations };
const base = { name: "ep", gpuIds: "ADA_24", templateId: "tpl-1" };

describe.each(PRIORITY_LIST_CASES.map((c) => [c.field, JSON.stringify(c.value), c.ok ? "accepted" : "refused", c.reason, c] as const))(
  "%s %s is %s (%s)",
  (_f, _v, _o, _r, c) => {
    test("by the exported validator", () => {
      const problem = validators[c.field](c.value);
      if (c.ok) expect(problem).toBeUndefined();
      else expect(problem).toMatch(new RegExp(`^${c.field} `));
    });

    test("by the endpoint input schema, which keeps the string as given", () => {
      const parsed = schemas.EndpointInputSchema.safeParse({ ...base, [c.field]: c.value });
      expect(parsed.success).toBe(c.ok);
      if (parsed.success) expect(parsed.data[c.field]).toBe(c.value);
      else expect(parsed.error.issues.map((i) => i.path.join("."))).toContain(c.field);
    });
  },
);
