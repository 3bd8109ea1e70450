// The control plane's patterns cannot run away (issue 35, case 2), over real HTTP: errorImages and
// failingPrompts are matched in linear time (RE2), so `^(a+)+$`, which a backtracking engine takes
// seconds over for 25 `a`s and a `!` (doubling with each one), is accepted and answers at once for
// thousands; what only backtracking can do (backreferences, lookaround) is a 422 naming the field.
import { RTX4090, sharedEmulator } from "../../../helpers/emulator-rest";

const { emu, api } = sharedEmulator();

afterEach(async () => {
  await api.del("/emulator/faults");
});

test("a backreference or lookaround is a 422 naming the field; nothing is set", async () => {
  const look = await api.patch("/emulator/faults", { errorImages: [":ok$", "^(?=a)a+$"] });
  expect(look.status).toBe(422);
  expect(look.body.errors).toEqual([expect.stringMatching(/^errorImages\.1: is not a pattern the emulator takes \(.*\); patterns are matched in linear time \(RE2\): no backreferences or lookaround$/)]);
  const back = await api.patch("/emulator/faults", { failingPrompts: ["(a+)\\1$"] });
  expect(back.status).toBe(422);
  expect(back.body.errors).toEqual([expect.stringMatching(/^failingPrompts\.0: is not a pattern the emulator takes/)]);
  const now = (await api.get("/emulator/faults")).body;
  expect([now.errorImages, now.failingPrompts]).toEqual([[], []]);
});

test("`^(a+)+$` is matched in linear time: a pod image of 5,000 `a`s and a `!` runs, one of `a`s errs", async () => {
  const set = await api.patch("/emulator/faults", { errorImages: ["^(a+)+$"], failingPrompts: ["^(a+)+$"] });
  expect(set.status).toBe(200);
  expect(set.body.errorImages).toEqual(["^(a+)+$"]);
  const long = `${"a".repeat(5000)}!`;
  const runs = await api.createPod({ name: "long", image: long, gpu: { id: RTX4090 } });
  const errs = await api.createPod({ name: "as", image: "a".repeat(5000), gpu: { id: RTX4090 } });
  await api.waitFor(runs.id, "RUNNING");
  await api.waitFor(errs.id, "ERROR");
  // The same for a hosted-model prompt.
  const job = await api.post(`/v2/sdxl-turbo/runsync`, { input: { prompt: long } });
  expect(job.body.status).toBe("COMPLETED");
  const failed = await api.post(`/v2/sdxl-turbo/runsync`, { input: { prompt: "a".repeat(5000) } });
  expect(failed.body.status).toBe("FAILED");
  expect(emu().requestLog().every((e) => e.status < 500)).toBe(true);
});
