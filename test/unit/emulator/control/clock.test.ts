// The control plane's clock (docs/emulator.md, "The clock"): GET reads it, POST { advanceMs }
// moves it forward and tells the emulator's timers; a bad body is a 422 naming the field, the
// clock unmoved.
import { AdjustableClock, MAX_ADVANCE_MS } from "../../../../src/emulator/core/clock";
import type { HttpError } from "../../../../src/emulator/core/problem";
import { clockRoutes } from "../../../../src/emulator/control/clock";
import { routeContext as ctx } from "../../../helpers/route-context";

const T0 = Date.parse("2026-01-01T00:00:00.000Z");

function routes() {
  const clock = new AdjustableClock({ now: () => T0 });
  let moves = 0;
  const [read, advance] = clockRoutes(clock, 10, () => moves++).routes;
  return { clock, read, advance, moves: () => moves };
}

test("two control routes: getClock and advanceClock on /emulator/clock", () => {
  const { read, advance } = routes();
  expect([read, advance].map((r) => [r.method, r.path, r.op, r.control])).toEqual([
    ["GET", "/emulator/clock", "getClock", true],
    ["POST", "/emulator/clock", "advanceClock", true],
  ]);
});

test("GET reads now as an ISO time and epoch ms, how far it was moved, and the time scale", async () => {
  expect(await routes().read.run(ctx())).toEqual({
    status: 200,
    body: { now: "2026-01-01T00:00:00.000Z", epochMs: T0, advancedMs: 0, timeScale: 10 },
  });
});

test("POST moves the clock, then tells the emulator, and answers the clock after the move", async () => {
  const { clock, advance, moves } = routes();
  expect(await advance.run(ctx({ body: { advanceMs: 86_400_000 } }))).toEqual({
    status: 200,
    body: { now: "2026-01-02T00:00:00.000Z", epochMs: T0 + 86_400_000, advancedMs: 86_400_000, timeScale: 10 },
  });
  expect(clock.advancedMs).toBe(86_400_000);
  expect(moves()).toBe(1);
});

test.each([
  [{ advanceMs: -1 }, "advanceMs"],
  [{ advanceMs: 1.5 }, "advanceMs"],
  [{ advanceMs: MAX_ADVANCE_MS + 1 }, "advanceMs"],
  [{ advanceMs: "60000" }, "advanceMs"],
  [{ advanceMs: 1, by: 2 }, "body"],
  [{}, "advanceMs"],
  [null, "body"],
])("a body of %j is a 422 naming %s; the clock stays and nothing is told", async (body, field) => {
  const { clock, advance, moves } = routes();
  let err: HttpError | undefined;
  try {
    await advance.run(ctx({ body }));
  } catch (e) {
    err = e as HttpError;
  }
  expect(err?.status).toBe(422);
  expect(err?.detail).toMatch(new RegExp(`^request body is invalid: ${field}: `));
  expect(clock.advancedMs).toBe(0);
  expect(moves()).toBe(0);
});
