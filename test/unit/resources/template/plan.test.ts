import type { Template as WireTemplate } from "../../../../src/client";
import { UNKNOWN } from "../../../../src/resources/inputs/check";
import { checkTemplate, type TemplateInputs, type TemplateOutputs } from "../../../../src/resources/template/schema";
import { planTemplateChange } from "../../../../src/resources/template/plan";
import { createBody, outputsOf, PLATFORM_FIELDS, templateStepEffects, templateUsers, updateBody } from "../../../../src/resources/template/plan";
import { deleteLine, stepLine } from "../../../../src/resources/lifecycle/step-line";

const olds: TemplateOutputs = {
  id: "tpl-1",
  name: "worker",
  image: "worker:1",
  args: "--serve",
  disk: 20,
  mounts: { persistent: { size: 20, path: "/workspace" } },
  ports: ["8000/http"],
  env: { MODE: "prod" },
  registry: "reg-1",
  serverless: true,
  public: false,
  category: "NVIDIA",
  deleteWaitSeconds: 120,
};

/** The checked inputs that describe exactly `olds`. */
const same = (): TemplateInputs => {
  const { id: _id, ...rest } = olds;
  return checkTemplate({}, structuredClone(rest) as any).inputs!;
};

describe("Template diff verdict: every property", () => {
  test.each<[string, Partial<Record<keyof TemplateInputs, unknown>>, { replaces: string[]; updates: string[] }]>([
    ["nothing changed", {}, { replaces: [], updates: [] }],
    ["name", { name: "renamed" }, { replaces: [], updates: ["name"] }],
    ["image", { image: "worker:2" }, { replaces: [], updates: ["image"] }],
    ["args", { args: "" }, { replaces: [], updates: ["args"] }],
    ["disk grows", { disk: 40 }, { replaces: [], updates: ["disk"] }],
    ["disk shrinks (a template is a preset)", { disk: 10 }, { replaces: [], updates: ["disk"] }],
    ["disk dropped: the platform keeps it, no diff", { disk: undefined }, { replaces: [], updates: [] }],
    ["persistent size", { mounts: { persistent: { size: 30, path: "/workspace" } } }, { replaces: [], updates: ["mounts"] }],
    ["persistent path", { mounts: { persistent: { size: 20, path: "/data" } } }, { replaces: [], updates: ["mounts"] }],
    ["persistent dropped: PATCH keeps a mount, so replace", { mounts: undefined }, { replaces: ["mounts"], updates: [] }],
    ["mounts emptied: the persistent one goes, so replace", { mounts: {} }, { replaces: ["mounts"], updates: [] }],
    ["ports", { ports: ["8000/http", "22/tcp"] }, { replaces: [], updates: ["ports"] }],
    ["ports dropped -> []", { ports: [] }, { replaces: [], updates: ["ports"] }],
    ["env value", { env: { MODE: "dev" } }, { replaces: [], updates: ["env"] }],
    ["env dropped -> {}", { env: {} }, { replaces: [], updates: ["env"] }],
    ["registry", { registry: "reg-2" }, { replaces: [], updates: ["registry"] }],
    ["registry dropped -> null", { registry: null }, { replaces: [], updates: ["registry"] }],
    ["serverless (PATCH takes it)", { serverless: false }, { replaces: [], updates: ["serverless"] }],
    ["public", { public: true }, { replaces: [], updates: ["public"] }],
    ["category", { category: "AMD" }, { replaces: [], updates: ["category"] }],
    ["deleteWaitSeconds (state only)", { deleteWaitSeconds: 5 }, { replaces: [], updates: ["deleteWaitSeconds"] }],
    ["mount dropped and image changed: replace only", { mounts: undefined, image: "worker:2" }, { replaces: ["mounts"], updates: [] }],
    ["unknown image at preview", { image: UNKNOWN }, { replaces: [], updates: ["image"] }],
    ["unknown env entry at preview", { env: { MODE: UNKNOWN } }, { replaces: [], updates: ["env"] }],
    ["unknown mounts at preview: worst case", { mounts: UNKNOWN }, { replaces: ["mounts"], updates: [] }],
    ["unknown persistent at preview: an update", { mounts: { persistent: UNKNOWN } }, { replaces: [], updates: ["mounts"] }],
  ])("%s", (_label, change, verdict) => {
    const news: Record<string, unknown> = { ...same(), ...change };
    for (const k of Object.keys(change)) if (change[k as keyof TemplateInputs] === undefined) delete news[k];
    expect(planTemplateChange(olds, news)).toEqual(verdict);
  });

  test("a mount added to a template without one is an update", () => {
    const without = { ...olds, mounts: {} };
    expect(planTemplateChange(without, { ...same(), mounts: { persistent: { size: 10, path: "/w" } } })).toEqual({ replaces: [], updates: ["mounts"] });
    expect(planTemplateChange(without, { ...same(), mounts: undefined })).toEqual({ replaces: [], updates: [] });
  });

  test("state that recorded no mounts, and none declared: no change", () => {
    const { mounts: _m, ...noMounts } = olds;
    expect(planTemplateChange(noMounts, { ...same(), mounts: undefined })).toEqual({ replaces: [], updates: [] });
    expect(planTemplateChange(noMounts, { ...same(), mounts: {} })).toEqual({ replaces: [], updates: [] });
  });

  test("a template with no registry, declared again without one: no change", () => {
    const noRegistry = { ...olds, registry: null };
    expect(planTemplateChange(noRegistry, { ...same(), registry: null })).toEqual({ replaces: [], updates: [] });
  });

  test("deleteWaitSeconds declared as recorded: no change, whatever its value", () => {
    expect(planTemplateChange({ ...olds, deleteWaitSeconds: 5 }, { ...same(), deleteWaitSeconds: 5 })).toEqual({ replaces: [], updates: [] });
    expect(planTemplateChange({ ...olds, deleteWaitSeconds: undefined }, { ...same(), deleteWaitSeconds: 120 })).toEqual({ replaces: [], updates: [] });
  });
});

describe("Template wire mapping", () => {
  test("the PATCH body carries the changed fields only, removed ones as the platform's default", () => {
    const news = { ...same(), image: "worker:2", env: {}, registry: null, ports: [] };
    expect(updateBody(olds, news)).toEqual({ image: "worker:2", env: {}, registry: null, ports: [] });
    expect(updateBody(olds, same())).toBeUndefined();
    expect(updateBody(olds, { ...same(), deleteWaitSeconds: 1 })).toBeUndefined();
    const { disk: _d, ...noDisk } = same();
    expect(updateBody(olds, noDisk as TemplateInputs)).toBeUndefined();
  });

  test("a dropped mount is no PATCH (PATCH keeps a mount; the plan replaces instead)", () => {
    expect(updateBody(olds, { ...same(), mounts: {} })).toBeUndefined();
    expect(updateBody(olds, { ...same(), mounts: {}, image: "worker:2" })).toEqual({ image: "worker:2" });
  });

  test("the create body: every settled field, disk and mount only when given", () => {
    const { disk: _d, mounts: _m, ...bare } = same();
    expect(createBody(bare as TemplateInputs)).toEqual({
      name: "worker", image: "worker:1", args: "--serve", ports: ["8000/http"], env: { MODE: "prod" }, registry: "reg-1", serverless: true, public: false, category: "NVIDIA",
    });
    expect(createBody(same())).toMatchObject({ disk: 20, mounts: { persistent: { size: 20, path: "/workspace" } } });
  });

  test("outputs from the platform's template, the local wait setting kept", () => {
    const wire = { ...olds, mounts: {}, extra: "ignored" } as unknown as WireTemplate;
    const { extra: _x, ...expected } = { ...olds, mounts: {}, deleteWaitSeconds: 7, extra: 1 };
    expect(outputsOf(wire, 7)).toEqual(expected);
    expect(outputsOf(wire, undefined).deleteWaitSeconds).toBe(120);
    const mounted = { ...wire, mounts: { persistent: { size: 50, path: "/data", extra: 1 } } } as unknown as WireTemplate;
    expect(outputsOf(mounted, 7).mounts).toEqual({ persistent: { size: 50, path: "/data" } });
  });

  test("users: endpoints that run it, pods made from it that are not terminated", () => {
    const eps = [{ id: "ep-1", name: "api", templateId: "tpl-1" }, { id: "ep-2", name: "other", templateId: "tpl-2" }] as any;
    const pods = [
      { id: "p1", name: "a", template: "tpl-1", status: "RUNNING" },
      { id: "p2", name: "b", template: "tpl-1", status: "TERMINATED" },
      { id: "p3", name: "c", template: null, status: "RUNNING" },
    ] as any;
    expect(templateUsers("tpl-1", eps, pods)).toEqual([
      { kind: "endpoint", id: "ep-1", name: "api" },
      { kind: "pod", id: "p1", name: "a", status: "RUNNING" },
    ]);
    expect(templateUsers("tpl-1", [{ id: "ep-3", name: null, templateId: "tpl-1" }] as any, [])).toEqual([{ kind: "endpoint", id: "ep-3", name: "" }]);
  });
});

describe("Template step lines", () => {
  const line = (from: Partial<TemplateOutputs>, change: Partial<TemplateInputs>) => {
    const news = { ...same(), ...change };
    return stepLine('Template "w"', planTemplateChange(from, news), templateStepEffects(from, news));
  };

  test("a serverless template's container change rolls the workers of every endpoint running it; its other fields do not", () => {
    expect(line(olds, { image: "worker:2" })).toBe('Template "w": updated in place (image); every endpoint running it rolls its workers (image)');
    expect(line(olds, { disk: 40, registry: "reg-2", public: true })).toBe('Template "w": updated in place (disk, registry, public); every endpoint running it rolls its workers (disk, registry)');
    expect(line({ ...olds, serverless: false }, { image: "worker:2", serverless: false })).toBe('Template "w": updated in place (image)');
  });

  test("no field's update of a pod template restarts a container or rolls workers: a template runs none itself", () => {
    const effects = templateStepEffects({ ...olds, serverless: false }, same());
    for (const field of PLATFORM_FIELDS) {
      expect(stepLine('Template "w"', { replaces: [], updates: [field] }, effects)).toBe(`Template "w": updated in place (${field})`);
    }
    expect(effects.restarts).toEqual([]);
    expect(effects.rollsUsers).toEqual([]);
  });

  test("deleteWaitSeconds sends no request", () => {
    expect(line(olds, { deleteWaitSeconds: 5 })).toBe('Template "w": no request (recorded in state only: deleteWaitSeconds)');
  });

  test("a replacement and a delete lose the template, never data", () => {
    expect(line(olds, { mounts: {} })).toBe(
      'Template "w": replaced (mounts): a new one is made, then the old deleted; lost: its id (what names it through this resource\'s id follows the new one)',
    );
    expect(deleteLine("Template", "tpl-1", templateStepEffects(olds, olds))).toBe("Template tpl-1: deleted; lost: the template (it runs nothing itself)");
  });
});
