// The control plane's clock: read it, move it forward.
//
//   GET  /emulator/clock   getClock       { now, epochMs, advancedMs, timeScale }
//   POST /emulator/clock   advanceClock   { advanceMs } → the same, after the move
import { z } from "zod";
import { type AdjustableClock, MAX_ADVANCE_MS } from "../core/clock";
import { type Group, ok } from "../core/http/types";
import { problem } from "../core/problem";

const advanceSchema = z.strictObject({ advanceMs: z.number().int().min(0).max(MAX_ADVANCE_MS) });

export function clockRoutes(clock: AdjustableClock, timeScale: number, afterMove: () => void): Group {
  const view = () => ({ now: new Date(clock.now()).toISOString(), epochMs: clock.now(), advancedMs: clock.advancedMs, timeScale });
  return {
    routes: [
      { method: "GET", path: "/emulator/clock", op: "getClock", control: true, run: () => ok(200, view()) },
      {
        method: "POST",
        path: "/emulator/clock",
        op: "advanceClock",
        control: true,
        run: ({ body }) => {
          const r = advanceSchema.safeParse(body);
          if (!r.success) {
            const errors = r.error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "body"}: ${i.message}`);
            throw problem(422, `request body is invalid: ${errors.join("; ")}`, errors);
          }
          clock.advance(r.data.advanceMs);
          afterMove();
          return ok(200, view());
        },
      },
    ],
  };
}
