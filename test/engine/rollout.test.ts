// A promotion through Pulumi's own dynamic-provider plugin, for both endpoint APIs, against the
// emulator's releases and rollouts: a new worker image previews on the endpoint as a change
// naming `template`, `up` returns only once every worker runs the new image (none stale), an
// image that cannot start fails the `up` naming the held release while the old workers keep
// serving, and the next `up` with the image fixed finishes the rollout; the smoke test's job
// names the release that served it, and fails while a stale worker answers. The plugin loads
// dist/: run `npm run build` before this file alone.
import { ComputePlatform } from "../../src/client";
import { ServerlessEndpoint } from "../../src/resources/serverless-endpoint";
import { smokeCall } from "../../src/resources/serverless-endpoint/smoke";
import { Template } from "../../src/resources/template";
import { captureProgram, EngineStack, PROJECT, type Registration, SECRET_KEYS, urnOf } from "../../tools/engine";
import { engineRigForFile } from "../../tools/engine/rig";
import { resourcesOf, resourceSteps } from "../helpers/ledger";

const KEY = "cp_sentinel_rollout_5e18c2";
const r = engineRigForFile(KEY);

const capture = (stack: string, program: () => void, preview = false): Promise<Registration[]> =>
  captureProgram(program, { project: PROJECT, stack, preview, config: r.config, secretKeys: SECRET_KEYS });

interface Listed {
  endpointVersion: number | null;
  workers: { id: string; status: string; isStale: boolean; version: number | null; image: string | null }[];
}

async function workersOf(id: string): Promise<Listed> {
  const res = await fetch(`${r.emu.url}/v2/serverless/${id}/workers`, { headers: { authorization: `Bearer ${KEY}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as Listed;
}

/** The stack's smoke job (runSyncSmokeTest's call), on a client of the rig's emulator. */
async function smoke(id: string): Promise<Awaited<ReturnType<typeof smokeCall>>> {
  const client = new ComputePlatform({ apiKey: KEY, apiUrl: r.emu.url, serverlessUrl: r.emu.url, pacing: false });
  try {
    return await smokeCall(client, id, { prompt: "smoke" });
  } finally {
    await client.close();
  }
}

/** One program per API: its registrations for an image, the endpoint's wired to the template the stack made. */
type Flavour = (stack: EngineStack, image: string, preview?: boolean) => Promise<Registration[]>;

const graphql: Flavour = async (stack, image, preview = false) => {
  const regs = await capture(
    stack.stack,
    () => {
      const tpl = new Template("worker", { image, serverless: true });
      new ServerlessEndpoint("api", { gpuIds: "AMPERE_24", templateId: tpl.id, workersMin: 2, workersMax: 2 });
    },
    preview,
  );
  // The engine registers the endpoint with the template's id once it exists (a preview of a new
  // stack has none yet): the harness plays that part.
  const tpl = stack.resources.get(urnOf(stack.stack, PROJECT, regs[0]!.type, "worker"));
  if (!tpl) return regs.slice(0, 1);
  for (const reg of regs.slice(1)) if ("templateId" in reg.inputs) reg.inputs.templateId = tpl.id;
  return regs;
};

const rest: Flavour = (stack, image, preview = false) =>
  capture(stack.stack, () => void new ServerlessEndpoint("api", { api: "rest", container: { image }, gpuIds: "AMPERE_24", workersMin: 2, workersMax: 2 }), preview);

async function upTwice(stack: EngineStack, flavour: Flavour, image: string) {
  // The GraphQL program's first up makes the template, the second the endpoint bound to it.
  for (let i = 0; i < 2; i++) expect((await stack.up(await flavour(stack, image))).error).toBeUndefined();
}

test.each([
  ["GraphQL, a Template bound to the endpoint", "graphql", graphql],
  ["REST, the endpoint's own container", "rest", rest],
] as const)("over %s: the new image previews on the endpoint, up waits for it on every worker, a held rollout fails and the fix finishes it, the smoke job names the release that served it", async (_what, name, flavour) => {
  const stack = new EngineStack(r.plugin, { project: PROJECT, stack: `rollout-${name}` });
  await upTwice(stack, flavour, "worker:1");
  const endpoint = () => resourcesOf(stack).find((x) => x.urn.endsWith("ServerlessEndpoint::api"))!;
  const id = endpoint().id;
  const v1 = (await workersOf(id)).endpointVersion!;

  // The preview shows the endpoint changing; the engine's diff of its inputs names what rolls
  // its workers (the bound Template's image under `template`, or REST's own `container`).
  const regs = await flavour(stack, "worker:2", true);
  const preview = await stack.preview(regs);
  expect(preview.error).toBeUndefined();
  const step = resourceSteps(preview).find((s) => s.urn.endsWith("ServerlessEndpoint::api"))!;
  expect(step.op).toBe("update");
  const rolling = name === "rest" ? "container" : "template";
  const proposed = regs.find((x) => x.type.endsWith("ServerlessEndpoint"))!.inputs[rolling] as { image: string };
  expect([(endpoint().inputs[rolling] as { image: string }).image, proposed.image]).toEqual(["worker:1", "worker:2"]);

  // up returns once every worker runs the new image.
  const up = await stack.up(await flavour(stack, "worker:2"));
  expect(up.error).toBeUndefined();
  const after = await workersOf(id);
  expect(after.endpointVersion).toBeGreaterThan(v1);
  expect(after.workers).toHaveLength(2);
  for (const w of after.workers) expect(w).toMatchObject({ isStale: false, version: after.endpointVersion, image: "worker:2", status: "IDLE" });
  expect(endpoint().outputs).toMatchObject({ version: after.endpointVersion, rollout: { inProgress: false, workersOnLatest: 2, workersTotal: 2, percentOnLatest: 100 } });
  expect(resourceSteps(await stack.preview(await flavour(stack, "worker:2", true))).map((s) => s.op)).toEqual(name === "rest" ? ["same"] : ["same", "same"]);
  // The smoke job after the up is served by the new release, and says so.
  const served = await smoke(id);
  expect(served).toMatchObject({ status: "COMPLETED", release: after.endpointVersion });
  expect(after.workers.map((w) => w.id)).toContain(served.workerId);

  // An image that cannot start: the up fails naming the held release; the old workers serve on.
  r.emu.setFaults({ errorImages: ["^worker:bad$"] });
  try {
    const held = await stack.up(await flavour(stack, "worker:bad"));
    expect(held.error?.message).toMatch(/rollout of endpoint .* is held/);
    expect(held.error?.message).toContain("worker:bad");
    expect(held.error?.message).toContain("pulumi up");
    const during = await workersOf(id);
    expect(during.workers.filter((w) => w.isStale && w.image === "worker:2" && w.status === "IDLE")).toHaveLength(2);
    expect(during.workers.filter((w) => !w.isStale).every((w) => w.status === "UNHEALTHY")).toBe(true);
    // The state says the rollout is not over, so the next up waits again.
    expect(endpoint().outputs).toMatchObject({ rollout: { inProgress: true } });
    // A smoke job now is answered by a stale worker: the smoke test fails naming its release.
    await expect(smoke(id)).rejects.toThrow(new RegExp(`runs release ${after.endpointVersion} \\(image "worker:2"\\), not the endpoint's latest release ${during.endpointVersion}`));

    // Fixed: the next up makes a new release and waits for it to reach every worker.
    const fixed = await stack.up(await flavour(stack, "worker:3"));
    expect(fixed.error).toBeUndefined();
  } finally {
    r.emu.setFaults({});
  }
  const done = await workersOf(id);
  expect(done.workers).toHaveLength(2);
  for (const w of done.workers) expect(w).toMatchObject({ isStale: false, image: "worker:3", version: done.endpointVersion });
  expect(await smoke(id)).toMatchObject({ status: "COMPLETED", release: done.endpointVersion });

  expect((await stack.destroy()).error).toBeUndefined();
  expect(r.emu.state().endpoints).toEqual(expect.not.arrayContaining([expect.objectContaining({ id })]));
  for (const place of [stack.stateText(), r.plugin.transcript()]) expect(place).not.toContain(KEY);
});
