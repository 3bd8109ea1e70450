import { ConflictError, NotFoundError } from "../../../../src/client";
import {
  deleteWaitMs,
  deleteWaitSecondsSchema,
  deleteWhenUnused,
  type DeleteWhenUnusedOptions,
  describeHolders,
  type InUseHolder,
  inUseError,
} from "../../../../src/resources/lifecycle/in-use";
import { FakeClock } from "../../../helpers/fake-clock";

const init = (status: number, title: string, detail: string) => ({ status, title, detail, errors: [], method: "DELETE", url: "/v2/registries/r1" });
const conflict = () => new ConflictError("409 Conflict", init(409, "Conflict", "registry 'r1' is in use by pod 'p1'"));
const pod: InUseHolder = { kind: "pod", id: "p1", name: "web", status: "RUNNING" };

function options(over: Partial<DeleteWhenUnusedOptions>): DeleteWhenUnusedOptions & { sleeps: number[] } {
  const c = new FakeClock(0);
  return {
    what: "registry credential",
    id: "r1",
    name: "ghcr",
    verb: "used",
    waitMs: 3000,
    pollIntervalMs: 1000,
    clock: c,
    sleeps: c.sleeps,
    remove: async () => undefined,
    holders: async () => [],
    remedy: "Point the pod(s) at another registry",
    ...over,
  };
}

describe("deleteWhenUnused", () => {
  test("deletes at once when nothing uses it", async () => {
    let removes = 0;
    const o = options({ remove: async () => void removes++ });
    await deleteWhenUnused(o);
    expect(removes).toBe(1);
    expect(o.sleeps).toEqual([]);
  });

  test("a 404 is success: already gone", async () => {
    const o = options({
      remove: async () => {
        throw new NotFoundError("404 Not Found", init(404, "Not Found", "no registry 'r1'"));
      },
    });
    await expect(deleteWhenUnused(o)).resolves.toBeUndefined();
  });

  test("waits while a holder is listed, then deletes once it is gone", async () => {
    let removes = 0;
    let listings = 0;
    const o = options({
      remove: async () => {
        removes++;
        if (removes === 1) throw conflict();
      },
      holders: async () => (++listings < 3 ? [pod] : []),
    });
    await deleteWhenUnused(o);
    expect(o.sleeps).toEqual([1000, 1000, 1000]);
    // No DELETE while the holder was listed: the first 409, then the one that worked.
    expect(removes).toBe(2);
  });

  test("after the bound it fails naming every holder, grouped by kind", async () => {
    const holders: InUseHolder[] = [pod, { kind: "template", id: "t1", name: "base" }, { kind: "pod", id: "p2", name: "api", status: "EXITED" }];
    const o = options({
      remove: async () => {
        throw conflict();
      },
      holders: async () => holders,
    });
    const err = await deleteWhenUnused(o).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toBe(
      'registry credential r1 ("ghcr") is still used by pods p1 ("web", RUNNING), p2 ("api", EXITED) and template t1 ("base") ' +
        "after waiting 3 s. Point the pod(s) at another registry, then run the deletion again (deleteWaitSeconds sets how long delete waits).",
    );
    expect(o.sleeps).toEqual([1000, 1000, 1000]);
  });

  test("waitMs 0 asks once and fails without sleeping", async () => {
    const o = options({
      waitMs: 0,
      remove: async () => {
        throw conflict();
      },
      holders: async () => [pod],
    });
    await expect(deleteWhenUnused(o)).rejects.toThrow(/still used by pod p1 \("web", RUNNING\) after waiting 0 s/);
    expect(o.sleeps).toEqual([]);
  });

  test("a 409 with no holder listed reports the platform's reason", async () => {
    const o = options({
      waitMs: 1000,
      remove: async () => {
        throw conflict();
      },
    });
    await expect(deleteWhenUnused(o)).rejects.toThrow(
      /could not be deleted: the platform still reports it in use after 1 s \(registry 'r1' is in use by pod 'p1'\)/,
    );
  });

  test("any other failure passes through at once", async () => {
    const o = options({
      remove: async () => {
        throw new Error("boom");
      },
    });
    await expect(deleteWhenUnused(o)).rejects.toThrow("boom");
    expect(o.sleeps).toEqual([]);
  });

  test("an aborted signal ends the wait", async () => {
    const controller = new AbortController();
    controller.abort(new Error("cancelled"));
    const o = options({
      signal: controller.signal,
      remove: async () => {
        throw conflict();
      },
    });
    await expect(deleteWhenUnused(o)).rejects.toThrow("cancelled");
  });
});

test("inUseError without a name labels by id", () => {
  expect(inUseError({ what: "network volume", id: "v1", verb: "mounted", waitMs: 2000, remedy: "Stop" }, [pod]).message).toMatch(
    /^network volume v1 is still mounted by pod p1/,
  );
});

test("describeHolders: one kind, several kinds", () => {
  expect(describeHolders([pod])).toBe('pod p1 ("web", RUNNING)');
  expect(describeHolders([{ kind: "endpoint", id: "e1", name: "sd" }, pod])).toBe('endpoint e1 ("sd") and pod p1 ("web", RUNNING)');
});

test.each([
  [undefined, true],
  [0, true],
  [3600, true],
  [-1, false],
  [3601, false],
  [1.5, false],
  ["10", false],
])("deleteWaitSeconds %p valid: %p", (value, ok) => {
  expect(deleteWaitSecondsSchema.safeParse(value).success).toBe(ok);
});

test("deleteWaitMs defaults to 120 s", () => {
  expect(deleteWaitMs(undefined)).toBe(120_000);
  expect(deleteWaitMs(5)).toBe(5000);
});

describe("deleteWhenUnused, its bounds", () => {
  const refused = async () => {
    throw conflict();
  };

  test("the last pause is what is left of the wait, not a whole interval", async () => {
    const o = options({ waitMs: 2500, remove: refused, holders: async () => [pod] });
    await expect(deleteWhenUnused(o)).rejects.toThrow(/after waiting 3 s/);
    expect(o.sleeps).toEqual([1000, 1000, 500]);
  });

  test("an interval of 0 is taken as 1 ms", async () => {
    const o = options({ waitMs: 3, pollIntervalMs: 0, remove: refused, holders: async () => [pod] });
    await expect(deleteWhenUnused(o)).rejects.toThrow(/still used by pod p1/);
    expect(o.sleeps).toEqual([1, 1, 1]);
  });

  test("a clock that does not move still ends the wait: the rounds are bounded by the wait over the interval, plus two", async () => {
    let removes = 0;
    const still = { now: () => 0, sleep: async () => undefined };
    const o = options({
      clock: still,
      remove: async () => {
        removes++;
        throw conflict();
      },
    });
    await expect(deleteWhenUnused(o)).rejects.toThrow(/could not be deleted/);
    expect(removes).toBe(Math.ceil(3000 / 1000) + 2);
  });

  test("when the wait ends with no holder listed, the users are asked once more for the message", async () => {
    let listings = 0;
    const o = options({ waitMs: 1000, remove: refused, holders: async () => (++listings >= 2 ? [pod] : []) });
    await expect(deleteWhenUnused(o)).rejects.toThrow(/is still used by pod p1 \("web", RUNNING\) after waiting 1 s/);
    expect(listings).toBe(2);
  });

  test("a kind whose platform refuses another way says so with inUse; the message then falls back to 409 Conflict", async () => {
    const busy = Object.assign(new Error("400 volume busy"), { status: 400 });
    let removes = 0;
    const o = options({
      waitMs: 1000,
      inUse: (err) => err === busy,
      remove: async () => {
        removes++;
        throw busy;
      },
    });
    await expect(deleteWhenUnused(o)).rejects.toThrow(
      'registry credential r1 ("ghcr") could not be deleted: the platform still reports it in use after 1 s (409 Conflict), though nothing listed uses it. Try again shortly.',
    );
    expect(removes).toBe(2);
    // With inUse given, a 409 is no longer "in use": it passes through.
    const c = options({ inUse: () => false, remove: refused });
    await expect(deleteWhenUnused(c)).rejects.toBeInstanceOf(ConflictError);
    expect(c.sleeps).toEqual([]);
  });
});

test("inUseError rounds the wait to whole seconds", () => {
  expect(inUseError({ what: "template", id: "t1", verb: "used", waitMs: 1500, remedy: "Stop" }, [pod]).message).toBe(
    'template t1 is still used by pod p1 ("web", RUNNING) after waiting 2 s. Stop, then run the deletion again (deleteWaitSeconds sets how long delete waits).',
  );
});

test("deleteWaitSeconds: each refusal names the field and the rule", () => {
  const reason = (v: unknown) => deleteWaitSecondsSchema.safeParse(v).error?.issues[0]?.message;
  expect(reason("10")).toBe("deleteWaitSeconds must be a number of seconds");
  expect(reason(1.5)).toBe("deleteWaitSeconds must be a whole number of seconds");
  expect(reason(-1)).toBe("deleteWaitSeconds must be from 0 to 3600");
  expect(reason(3601)).toBe("deleteWaitSeconds must be from 0 to 3600");
});
