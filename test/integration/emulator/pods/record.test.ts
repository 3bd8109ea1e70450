// Stored pods as a state file holds them (docs/emulator.md, "Limits"): a record stored before
// the limits still loads and renders without allocating by its numbers; one the emulator cannot
// serve at all stops the start naming it, and the file is left as it was.
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { client, RTX4090, start } from "../../../helpers/emulator-rest";

describe("a state file with records stored before the limits", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(join(tmpdir(), "cp-emu-hostile-"));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("pods with gpu.count 2^32 and 5e7 and disk 1e20 load, render in every list and by id, and leave other pods alone", async () => {
    const file = join(dir, "old.json");
    const first = await start({ stateFile: file });
    const a1 = client(() => first);
    const big = await a1.createPod({ name: "big", gpu: { id: RTX4090 } });
    const huge = await a1.createPod({ name: "huge", gpu: { id: RTX4090 } });
    await a1.waitFor(big.id, "RUNNING");
    await a1.waitFor(huge.id, "RUNNING");
    await first.close();
    // What an emulator without the limits stored.
    const saved = JSON.parse(fs.readFileSync(file, "utf8"));
    for (const p of saved.pods) {
      if (p.id === big.id) p.gpu.count = 4_294_967_296;
      if (p.id === huge.id) Object.assign(p, { disk: 1e20, gpu: { ...p.gpu, count: 50_000_000 } });
    }
    fs.writeFileSync(file, JSON.stringify(saved));

    const second = await start({ stateFile: file });
    try {
      const a2 = client(() => second);
      const list = await a2.get("/v2/pods");
      expect(list.status).toBe(200);
      const listed = new Map((list.body.pods as any[]).map((p) => [p.id, p]));
      expect(listed.get(big.id)).toMatchObject({ status: "RUNNING", gpu: { count: 4_294_967_296 } });
      expect(listed.get(big.id).runtime.gpus.length).toBeLessThanOrEqual(8);
      expect(listed.get(huge.id)).toMatchObject({ disk: 1e20, gpu: { count: 50_000_000 } });
      expect((await a2.get(`/v2/pods/${big.id}`)).status).toBe(200);
      expect(second.state().pods.map((p) => p.id)).toEqual(expect.arrayContaining([big.id, huge.id]));
      // An unrelated, ordinary pod is created, listed and deleted as usual.
      const other = await a2.createPod({ name: "ordinary", gpu: { id: RTX4090 } });
      expect((await a2.get("/v2/pods")).body.pods.map((p: any) => p.id)).toContain(other.id);
      expect((await a2.del(`/v2/pods/${other.id}`)).status).toBe(204);
    } finally {
      await second.close();
    }
  });

  test("a record that cannot be served (a status no pod has) stops the start naming it, and the file is kept", async () => {
    const file = join(dir, "odd.json");
    const first = await start({ stateFile: file });
    const pod = await client(() => first).createPod({ name: "odd", gpu: { id: RTX4090 } });
    await first.close();
    const saved = JSON.parse(fs.readFileSync(file, "utf8"));
    saved.pods[0].status = "MIGRATING";
    const text = JSON.stringify(saved);
    fs.writeFileSync(file, text);
    await expect(start({ stateFile: file })).rejects.toThrow(new RegExp(`pods\\[0\\]\\.status \\(pod '${pod.id}'\\)`));
    expect(fs.readFileSync(file, "utf8")).toBe(text);
  });
});
