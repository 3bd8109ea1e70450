// Registry credentials over real HTTP (docs/emulator.md, "Rules it applies beyond the contract's
// shapes"): username and password are write-only, checked and dropped, so no answer, log line or
// state file carries them; the collection has no update.
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { client, sharedEmulator, start } from "../../../helpers/emulator-rest";

const { emu, api } = sharedEmulator();

describe("registries: username and password are write-only", () => {
  test("POST -> 201 { id, name } only; GET and the list carry no credential; DELETE -> 204", async () => {
    const r = await api.post("/v2/registries", { name: "ghcr", username: "robot-user", password: "s3cret-pw" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ id: expect.any(String), name: "ghcr" });
    expect((await api.get(`/v2/registries/${r.body.id}`)).body).toEqual(r.body);
    const list = await api.get("/v2/registries");
    expect(list.body.registries).toContainEqual(r.body);
    expect(JSON.stringify([list.body, emu().state(), emu().requestLog()])).not.toMatch(/s3cret-pw|robot-user/);
    expect((await api.del(`/v2/registries/${r.body.id}`)).status).toBe(204);
    expect((await api.get(`/v2/registries/${r.body.id}`)).status).toBe(404);
  });

  test("missing or empty credentials -> 422 without echoing any value; there is no update -> 405", async () => {
    const r = await api.post("/v2/registries", { name: "x", username: "", extra: "s3cret-pw" });
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual([
      "$: additional properties 'extra' not allowed",
      "$: missing property 'password'",
      "$.username: length must be >= 1, but got 0",
    ]);
    expect(JSON.stringify(r.body)).not.toContain("s3cret-pw");
    const reg = (await api.post("/v2/registries", { name: "y", username: "u", password: "p" })).body;
    const patch = await api.patch(`/v2/registries/${reg.id}`, { name: "z" });
    expect(patch.status).toBe(405);
    expect(patch.headers.get("allow")).toBe("GET, DELETE");
  });

  test("a body that is not JSON is refused without quoting it (it may hold a password)", async () => {
    const r = await api.call("POST", "/v2/registries", undefined, { raw: '{"name":"x","password":"s3cret-pw"' });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).not.toContain("s3cret-pw");
  });

  test("the state file keeps the registry's name and id, never its credentials", async () => {
    const dir = fs.mkdtempSync(join(tmpdir(), "cp-emu-reg-"));
    const file = join(dir, "state.json");
    const first = await start({ stateFile: file });
    try {
      const c = client(() => first);
      const reg = (await c.post("/v2/registries", { name: "kept", username: "robot-user", password: "s3cret-pw" })).body;
      await first.close();
      const text = fs.readFileSync(file, "utf8");
      expect(text).not.toMatch(/s3cret-pw|robot-user/);
      const second = await start({ stateFile: file });
      try {
        expect((await client(() => second).get(`/v2/registries/${reg.id}`)).body).toEqual(reg);
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
