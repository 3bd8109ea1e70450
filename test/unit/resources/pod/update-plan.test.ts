// The pod's step effects (issue 51): what its step line says a change does, from the tables
// that decide its update (RECORDED_ONLY, RESTARTING_FIELDS) and what it holds.
import { podStepEffects, RESTARTING_FIELDS } from "../../../../src/resources/pod/update-plan";

const network = { network: [{ volumeId: "v1", path: "/workspace" }] };
const persistent = { persistent: { size: 20, path: "/data" } };

test("a running pod: the restarting fields and globalNetworking restart it; the recorded-only ones send nothing", () => {
  const e = podStepEffects({ mounts: network, status: "RUNNING" } as never);
  expect(e.restarts).toEqual([...RESTARTING_FIELDS, "globalNetworking"]);
  expect(e.noRequest).toEqual(expect.arrayContaining(["maxHourlyCost", "waitTimeoutSeconds"]));
  expect(e.readsOnly).toEqual(["waitFor"]);
  expect(podStepEffects({}).restarts).toEqual(e.restarts);
});

test.each([
  [{ status: "EXITED" }, {}],
  [{ status: "ERROR" }, {}],
  [{ status: "RUNNING" }, { desiredStatus: "EXITED" }],
])("a pod that is or is being stopped (%j, %j) restarts nothing now", (olds, news) => {
  expect(podStepEffects(olds as never, news).restarts).toEqual([]);
});

test("a pod on a network volume keeps that data; one without destroys its own disk's, naming a volume on it", () => {
  expect(podStepEffects({ mounts: network } as never)).toMatchObject({
    replaced: { lost: "its container disk and its public address (IP and ports)", kept: "the data on its network volume, mounted again", destroysData: false },
    deleted: { lost: "its container disk and its public address", kept: "the data on its network volume", destroysData: false },
  });
  const own = podStepEffects({ mounts: persistent } as never);
  expect(own.replaced).toEqual({ lost: "its container disk, the volume on its own disk (mounts.persistent) and its public address (IP and ports)", destroysData: true });
  expect(own.deleted).toEqual({ lost: "its container disk, the volume on its own disk (mounts.persistent) and its public address", destroysData: true });
  expect(podStepEffects({ mounts: {} } as never).deleted).toEqual({ lost: "its container disk and its public address", destroysData: true });
});
