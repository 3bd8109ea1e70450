// The failures handlers answer with: a status, its title, a detail that names what is wrong and,
// for a body that breaks the contract, every violation (docs/emulator.md, "Rules it applies
// beyond the contract's shapes").
import { contractViolation, HttpError, problem, TITLES } from "../../../../src/emulator/core/problem";

test.each(Object.entries(TITLES))("problem(%s) carries its title", (status, title) => {
  const e = problem(Number(status), "why");
  expect(e).toBeInstanceOf(HttpError);
  expect(e).toBeInstanceOf(Error);
  expect({ status: e.status, title: e.title, detail: e.detail, message: e.message, errors: e.errors, headers: e.headers }).toEqual({
    status: Number(status),
    title,
    detail: "why",
    message: "why",
    errors: undefined,
    headers: {},
  });
});

test("a status without a title of its own is titled Error", () => {
  expect(problem(418, "teapot").title).toBe("Error");
});

test("a contract violation is a 422 listing every violation, in its detail too so a log line is enough", () => {
  const e = contractViolation(["$: missing property 'name'", "$.disk: must be >= 1"]);
  expect(e.status).toBe(422);
  expect(e.title).toBe("Unprocessable Entity");
  expect(e.errors).toEqual(["$: missing property 'name'", "$.disk: must be >= 1"]);
  expect(e.detail).toBe("request body does not match the contract: $: missing property 'name'; $.disk: must be >= 1");
});
