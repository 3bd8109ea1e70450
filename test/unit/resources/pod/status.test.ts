// The pod's status machine (status.ts): from where a pod is to where desiredStatus wants it,
// with start, stop or restart as needed, then a wait until the readiness predicate holds. The
// client's pod calls and the shared poller are scripted here, so each branch is driven on its
// own and every call is counted; time is an injected clock (the wait's budget is what is left
// of waitTimeoutSeconds after the actions). The emulator-backed runs are in the provider's tests.
import type { ComputePlatform } from "../../../../src/client";
import { BadRequestError, ConflictError, TimeoutError } from "../../../../src/client/core/errors";
import { type Poller, type WaitOptions, WaitTimeoutError } from "../../../../src/resources/lifecycle/poller";
import type { PodOutputs } from "../../../../src/resources/pod/outputs";
import type { LivePod, PodInputs } from "../../../../src/resources/pod/schema";
import {
  converge,
  isReady,
  lastSeen,
  PodFailedError,
  PodInitError,
  portsPublished,
  provisioning,
  statusMatches,
  STOPPED,
} from "../../../../src/resources/pod/status";
import { FakeClock } from "../../../helpers/fake-clock";
import { wirePod } from "../../../helpers/loopback";

const pod = (over: Partial<LivePod> = {}): LivePod => wirePod({ id: "p1", ...over }) as unknown as LivePod;
const running = (over: Partial<LivePod> = {}) =>
  pod({ status: "RUNNING", actions: ["stop", "restart", "terminate"], startedAt: "2026-01-01T00:01:00.000Z", ...over });
const exited = (over: Partial<LivePod> = {}) => pod({ status: "EXITED", actions: ["start", "terminate"], ...over });
const runtime = (ports: { private: number; public?: number | null; type?: string }[]) => ({ ports }) as unknown as LivePod["runtime"];

describe("readiness", () => {
  it("HTTP ports need only be listed; TCP and UDP ports need a public port mapped", () => {
    const ports = ["8888/http", "22/tcp"];
    expect(portsPublished({ ports, runtime: runtime([{ private: 8888, public: null, type: "http" }, { private: 22, public: 40022, type: "tcp" }]) })).toBe(true);
    expect(portsPublished({ ports, runtime: runtime([{ private: 8888, type: "http" }, { private: 22, public: null, type: "tcp" }]) })).toBe(false);
    expect(portsPublished({ ports, runtime: runtime([{ private: 8888, type: "http" }, { private: 22, type: "tcp" }]) })).toBe(false);
    expect(portsPublished({ ports: ["53/udp"], runtime: runtime([{ private: 53, public: 0, type: "udp" }]) })).toBe(true);
  });

  it("an entry matches by port and, when it names one, by protocol", () => {
    expect(portsPublished({ ports: ["22/tcp"], runtime: runtime([{ private: 22, public: 1, type: "udp" }]) })).toBe(false);
    expect(portsPublished({ ports: ["22/tcp"], runtime: runtime([{ private: 22, public: 1 }]) })).toBe(true);
    expect(portsPublished({ ports: ["22/tcp"], runtime: runtime([{ private: 23, public: 1, type: "tcp" }]) })).toBe(false);
    expect(portsPublished({ ports: ["8888/http"], runtime: null })).toBe(false);
    expect(portsPublished({ ports: [], runtime: null })).toBe(true);
  });

  it("isReady: RUNNING, and for PORTS every port published", () => {
    const live = running({ ports: ["22/tcp"], runtime: runtime([{ private: 22, public: null, type: "tcp" }]) });
    expect(isReady(live, "RUNNING")).toBe(true);
    expect(isReady(live, "PORTS")).toBe(false);
    expect(isReady({ ...live, status: "STARTING" }, "RUNNING")).toBe(false);
  });

  it("statusMatches: EXITED is met by a stopped or failed pod; RUNNING by readiness as waitFor says (PORTS or else RUNNING)", () => {
    expect(statusMatches(exited(), "EXITED", "RUNNING")).toBe(true);
    expect(statusMatches(pod({ status: "ERROR" }), "EXITED", "PORTS")).toBe(true);
    expect(statusMatches(running(), "EXITED", "RUNNING")).toBe(false);
    const unmapped = running({ ports: ["22/tcp"], runtime: runtime([]) });
    expect(statusMatches(unmapped, "RUNNING", "RUNNING")).toBe(true);
    expect(statusMatches(unmapped, "RUNNING", "PORTS")).toBe(false);
    expect(statusMatches(unmapped, undefined, undefined)).toBe(true);
    expect(statusMatches(exited(), "RUNNING", "RUNNING")).toBe(false);
  });

  it("the slow phase is PROVISIONING, and STOPPED holds EXITED and ERROR", () => {
    expect(provisioning(pod({ status: "PROVISIONING" }))).toBe(true);
    expect(provisioning(running())).toBe(false);
    expect(provisioning(undefined)).toBe(false);
    expect([...STOPPED].sort()).toEqual(["ERROR", "EXITED"]);
  });
});

describe("errors", () => {
  it("lastSeen: the failed pod, the timed-out wait's last pod, or the fallback", () => {
    const failed = pod({ status: "ERROR" });
    const fallback = running();
    expect(lastSeen(new PodFailedError(failed, "x"), fallback)).toBe(failed);
    const last = pod({ status: "STARTING" });
    expect(lastSeen(new WaitTimeoutError("pod", "p1", "RUNNING", 1000, last), fallback)).toBe(last);
    expect(lastSeen(new WaitTimeoutError("pod", "p1", "RUNNING", 1000, undefined), fallback)).toBe(fallback);
    expect(lastSeen(new Error("other"), undefined)).toBeUndefined();
  });

  it("PodInitError carries the pod's id and outputs for Pulumi's partial state, and the cause's text as its reason", () => {
    const props = { id: "p1", name: "trainer" } as PodOutputs;
    const cause = new Error("did not become RUNNING");
    const err = new PodInitError("p1", props, cause);
    expect(err.message).toBe('pod p1 ("trainer"): did not become RUNNING');
    expect(err.reasons).toEqual(["did not become RUNNING"]);
    expect(err.cause).toBe(cause);
    expect(err.properties).toBe(props);
    expect(err.name).toBe("PodInitError");
    expect(new PodInitError("p1", props, "plain").reasons).toEqual(["plain"]);
    expect(new PodFailedError(pod(), "m").name).toBe("PodFailedError");
  });
});

/** A scripted platform: each action answers from `actions`, each get and each poll tick from `reads`. */
function rig(script: {
  actions?: ((action: string) => LivePod | undefined | Error)[];
  reads?: (LivePod | undefined)[];
  actionMs?: number;
  signal?: AbortSignal;
}) {
  const clock = new FakeClock(0);
  const calls: string[] = [];
  /** Whether each call carried the context's signal. */
  const signalled: boolean[] = [];
  const waits: { description: string; timeoutMs: number }[] = [];
  const reads = [...(script.reads ?? [])];
  const actions = [...(script.actions ?? [])];
  const nextRead = () => {
    if (reads.length === 0) throw new Error("the script has no more reads");
    return reads.shift();
  };
  const client = {
    pods: {
      action: async (id: string, action: string, opts?: { signal?: AbortSignal }) => {
        calls.push(`${action} ${id}`);
        signalled.push(opts?.signal === script.signal);
        clock.current += script.actionMs ?? 0;
        const answer = actions.shift();
        if (!answer) throw new Error(`unscripted action ${action}`);
        const out = answer(action);
        if (out instanceof Error) throw out;
        return out;
      },
      get: async (id: string, opts?: { signal?: AbortSignal }) => {
        calls.push(`get ${id}`);
        signalled.push(opts?.signal === script.signal);
        return nextRead()!;
      },
    },
  } as unknown as ComputePlatform;
  const poller = {
    wait: async (id: string, o: WaitOptions<LivePod>) => {
      waits.push({ description: o.description, timeoutMs: o.timeoutMs });
      let last: LivePod | undefined;
      while (reads.length > 0) {
        last = reads.shift();
        const verdict = o.until(last);
        if (verdict === "done") return last;
        if (verdict instanceof Error) throw verdict;
        if (verdict !== "pending") throw new Error(`not a verdict: ${String(verdict)}`);
      }
      throw new WaitTimeoutError("pod", id, o.description, o.timeoutMs, last);
    },
  } as unknown as Poller<LivePod>;
  return { ctx: { client, poller, clock, signal: script.signal }, calls, signalled, waits, left: () => reads.length + actions.length };
}

const inputs = (over: Partial<PodInputs> = {}) =>
  ({ desiredStatus: "RUNNING", waitFor: "RUNNING", waitTimeoutSeconds: 600, ...over }) as PodInputs;
const answer = (p: LivePod) => () => p;

describe("converge to RUNNING", () => {
  it("a ready pod: no action, no wait", async () => {
    const r = rig({});
    const live = running();
    await expect(converge(r.ctx, live, inputs(), { restart: false })).resolves.toBe(live);
    expect(r.calls).toEqual([]);
    expect(r.waits).toEqual([]);
  });

  it.each(["EXITED", "ERROR"])("a %s pod is started, then waited on until RUNNING", async (status) => {
    const r = rig({ actions: [answer(pod({ status: "STARTING" }))], reads: [pod({ status: "STARTING" }), running()] });
    const out = await converge(r.ctx, pod({ status: status as LivePod["status"] }), inputs(), { restart: false });
    expect(out.status).toBe("RUNNING");
    expect(r.calls).toEqual(["start p1"]);
    expect(r.waits).toEqual([{ description: "RUNNING", timeoutMs: 600_000 }]);
  });

  it("restart asked of a RUNNING pod restarts it; of a stopped one, starts it", async () => {
    const r = rig({ actions: [answer(pod({ status: "STARTING" }))], reads: [running()] });
    await converge(r.ctx, running(), inputs(), { restart: true });
    expect(r.calls).toEqual(["restart p1"]);
    const s = rig({ actions: [answer(running())] });
    await converge(s.ctx, exited(), inputs(), { restart: true });
    expect(s.calls).toEqual(["start p1"]);
  });

  it("an action answered without a pod reads the pod", async () => {
    const r = rig({ actions: [() => undefined], reads: [running()] });
    await expect(converge(r.ctx, exited(), inputs(), { restart: false })).resolves.toMatchObject({ status: "RUNNING" });
    expect(r.calls).toEqual(["start p1", "get p1"]);
  });

  it("the wait gets what is left of waitTimeoutSeconds after the actions", async () => {
    const r = rig({ actions: [answer(pod({ status: "STARTING" }))], reads: [running()], actionMs: 4_000 });
    await converge(r.ctx, exited(), inputs({ waitTimeoutSeconds: 10 }), { restart: false });
    expect(r.waits).toEqual([{ description: "RUNNING", timeoutMs: 6_000 }]);
    const late = rig({ actions: [answer(pod({ status: "STARTING" }))], reads: [running()], actionMs: 15_000 });
    await converge(late.ctx, exited(), inputs({ waitTimeoutSeconds: 10 }), { restart: false });
    expect(late.waits[0].timeoutMs).toBe(0);
  });

  it("PORTS waits until every port is published", async () => {
    const ports = ["22/tcp"];
    const r = rig({ reads: [running({ ports, runtime: runtime([{ private: 22, public: null, type: "tcp" }]) }), running({ ports, runtime: runtime([{ private: 22, public: 4022, type: "tcp" }]) })] });
    const out = await converge(r.ctx, running({ ports, runtime: null }), inputs({ waitFor: "PORTS" }), { restart: false });
    expect(out.runtime?.ports?.[0].public).toBe(4022);
    expect(r.waits[0].description).toBe("RUNNING with its ports published");
    expect(r.calls).toEqual([]);
  });

  it.each([
    ["ERROR", "pod p1 went into ERROR instead of RUNNING: its container could not become healthy"],
    ["EXITED", "pod p1 was stopped (EXITED) while waiting for RUNNING"],
  ])("a pod that goes %s during the wait fails it, carrying the pod", async (status, message) => {
    const r = rig({ reads: [pod({ status: "STARTING" }), pod({ status: status as LivePod["status"] })] });
    const err = await converge(r.ctx, pod({ status: "STARTING" }), inputs(), { restart: false }).catch((e) => e);
    expect(err).toBeInstanceOf(PodFailedError);
    expect(err.message).toBe(message);
    expect(err.pod.status).toBe(status);
  });

  it("a pod no longer listed during the wait fails it as terminated", async () => {
    const r = rig({ reads: [undefined] });
    await expect(converge(r.ctx, pod({ status: "STARTING" }), inputs(), { restart: false })).rejects.toThrow(
      "pod p1 was terminated while waiting for RUNNING",
    );
  });
});

describe("converge after an update that restarts the container", () => {
  const before = { startedAt: "2026-01-01T00:01:00.000Z" };
  const restarted = running({ startedAt: "2026-01-01T00:09:00.000Z" });

  it("the answer still RUNNING from before: waits for a new startedAt", async () => {
    const r = rig({ reads: [running(), pod({ status: "STARTING" }), restarted] });
    await expect(converge(r.ctx, running(), inputs(), { restart: false, restartedFrom: before })).resolves.toBe(restarted);
    expect(r.waits).toEqual([{ description: "RUNNING again after the update restarted its container", timeoutMs: 600_000 }]);
    expect(r.left()).toBe(0);
  });

  it("already restarted and ready: no wait", async () => {
    const r = rig({});
    await expect(converge(r.ctx, restarted, inputs(), { restart: false, restartedFrom: before })).resolves.toBe(restarted);
    expect(r.waits).toEqual([]);
  });

  it("ERROR fails at once: nothing is started again", async () => {
    const r = rig({});
    const err = await converge(r.ctx, pod({ status: "ERROR" }), inputs({ waitFor: "PORTS" }), { restart: false, restartedFrom: before }).catch((e) => e);
    expect(err).toBeInstanceOf(PodFailedError);
    expect(err.message).toBe(
      "pod p1 went into ERROR instead of RUNNING again after the update restarted its container, with its ports published: its container could not become healthy",
    );
    expect(r.calls).toEqual([]);
  });

  it("stopped during the wait fails it", async () => {
    const r = rig({ reads: [exited()] });
    await expect(converge(r.ctx, running(), inputs(), { restart: false, restartedFrom: before })).rejects.toThrow(
      "pod p1 was stopped (EXITED) while waiting for RUNNING again after the update restarted its container",
    );
  });

  it("a pod that was EXITED, or a pod meant to stop, is not waited on for the restart", async () => {
    const r = rig({ actions: [answer(running())] });
    await converge(r.ctx, exited(), inputs(), { restart: false, restartedFrom: before });
    expect(r.calls).toEqual(["start p1"]);
    expect(r.waits).toEqual([]);
    const s = rig({ actions: [answer(exited())] });
    await converge(s.ctx, running(), inputs({ desiredStatus: "EXITED" }), { restart: false, restartedFrom: before });
    expect(s.calls).toEqual(["stop p1"]);
    expect(s.waits).toEqual([]);
  });
});

describe("converge to EXITED", () => {
  it.each(["EXITED", "ERROR"])("a %s pod is left as it is", async (status) => {
    const r = rig({});
    await converge(r.ctx, pod({ status: status as LivePod["status"] }), inputs({ desiredStatus: "EXITED" }), { restart: true });
    expect(r.calls).toEqual([]);
  });

  it("a running pod is stopped; an answer already EXITED needs no wait", async () => {
    const r = rig({ actions: [answer(exited())] });
    await expect(converge(r.ctx, running(), inputs({ desiredStatus: "EXITED" }), { restart: false })).resolves.toMatchObject({ status: "EXITED" });
    expect(r.calls).toEqual(["stop p1"]);
    expect(r.waits).toEqual([]);
  });

  it("an answer not yet EXITED is waited on until it is", async () => {
    const r = rig({ actions: [answer(running())], reads: [running(), exited()] });
    await expect(converge(r.ctx, running(), inputs({ desiredStatus: "EXITED" }), { restart: false })).resolves.toMatchObject({ status: "EXITED" });
    expect(r.waits).toEqual([{ description: "EXITED", timeoutMs: 600_000 }]);
  });

  it("a PROVISIONING pod cannot be stopped: waits until it can, then stops it", async () => {
    const provisioningPod = pod({ status: "PROVISIONING", actions: ["terminate"] });
    const r = rig({ reads: [provisioningPod, running()], actions: [answer(exited())] });
    await converge(r.ctx, provisioningPod, inputs({ desiredStatus: "EXITED" }), { restart: false });
    expect(r.waits.map((w) => w.description)).toEqual(["stoppable"]);
    expect(r.left()).toBe(0);
    expect(r.calls).toEqual(["stop p1"]);
  });

  it("a pod that stopped on its own while waiting to be stoppable needs no stop", async () => {
    const provisioningPod = pod({ status: "PROVISIONING", actions: ["terminate"] });
    const r = rig({ reads: [pod({ status: "ERROR", actions: ["terminate"] })] });
    await expect(converge(r.ctx, provisioningPod, inputs({ desiredStatus: "EXITED" }), { restart: false })).resolves.toMatchObject({ status: "ERROR" });
    expect(r.calls).toEqual([]);
  });
});

describe("an action whose outcome is unknown", () => {
  const timeout = () => new TimeoutError("POST", "http://h/v2/pods/p1/action", 1000);
  const conflict = () =>
    new ConflictError("conflict", { status: 409, title: "", detail: "", errors: [], method: "POST", url: "http://h", code: undefined, retryAfterMs: undefined });

  it("reads the pod: the action shows, so it is not sent again", async () => {
    const r = rig({ actions: [timeout], reads: [pod({ status: "STARTING" }), running()] });
    await converge(r.ctx, exited(), inputs(), { restart: false });
    expect(r.calls).toEqual(["start p1", "get p1"]);
  });

  it("a stop shows as EXITED, a start as a pod no longer stopped (its startedAt may be the same)", async () => {
    const stop = rig({ actions: [timeout], reads: [exited({ startedAt: running().startedAt })] });
    await expect(converge(stop.ctx, running(), inputs({ desiredStatus: "EXITED" }), { restart: false })).resolves.toMatchObject({ status: "EXITED" });
    expect(stop.calls).toEqual(["stop p1", "get p1"]);
    const start = rig({ actions: [timeout], reads: [running()] });
    await converge(start.ctx, exited({ startedAt: running().startedAt }), inputs(), { restart: false });
    expect(start.calls).toEqual(["start p1", "get p1"]);
  });

  it("every call carries the deployment's signal", async () => {
    const signal = new AbortController().signal;
    const r = rig({ actions: [timeout, () => undefined], reads: [exited(), running()], signal });
    await converge(r.ctx, exited(), inputs(), { restart: false });
    expect(r.calls).toEqual(["start p1", "get p1", "start p1", "get p1"]);
    expect(r.signalled).toEqual([true, true, true, true]);
  });

  it("the action does not show: sent again, at most three times, then the failure is the answer", async () => {
    const r = rig({ actions: [timeout, timeout, timeout], reads: [exited(), exited()] });
    await expect(converge(r.ctx, exited(), inputs(), { restart: false })).rejects.toBeInstanceOf(TimeoutError);
    expect(r.calls).toEqual(["start p1", "get p1", "start p1", "get p1", "start p1"]);
  });

  it("a 409 whose action the pod no longer offers is the answer at once", async () => {
    const r = rig({ actions: [conflict], reads: [running({ actions: ["terminate"] })] });
    await expect(converge(r.ctx, running(), inputs({ desiredStatus: "EXITED" }), { restart: false })).rejects.toBeInstanceOf(ConflictError);
    expect(r.calls).toEqual(["stop p1", "get p1"]);
  });

  it("a 409 whose action is still offered is tried again", async () => {
    const r = rig({ actions: [conflict, answer(exited())], reads: [running()] });
    await converge(r.ctx, running(), inputs({ desiredStatus: "EXITED" }), { restart: false });
    expect(r.calls).toEqual(["stop p1", "get p1", "stop p1"]);
  });

  it("a failure the server provably acted on (a 400) is not retried and reads nothing", async () => {
    const bad = () => new BadRequestError("bad", { status: 400, title: "", detail: "", errors: [], method: "POST", url: "http://h", code: undefined, retryAfterMs: undefined });
    const r = rig({ actions: [bad] });
    await expect(converge(r.ctx, exited(), inputs(), { restart: false })).rejects.toBeInstanceOf(BadRequestError);
    expect(r.calls).toEqual(["start p1"]);
  });

  it("a restart shows as STARTING, or as a new startedAt unless the pod went into ERROR", async () => {
    const starting = rig({ actions: [timeout], reads: [pod({ status: "STARTING", startedAt: running().startedAt }), running()] });
    await converge(starting.ctx, running(), inputs(), { restart: true });
    expect(starting.calls).toEqual(["restart p1", "get p1"]);
    const newStart = rig({ actions: [timeout], reads: [running({ startedAt: "2026-01-01T00:05:00.000Z" })] });
    await converge(newStart.ctx, running(), inputs(), { restart: true });
    expect(newStart.calls).toEqual(["restart p1", "get p1"]);
    const same = rig({ actions: [timeout, answer(pod({ status: "STARTING" }))], reads: [running(), running()] });
    await converge(same.ctx, running(), inputs(), { restart: true });
    expect(same.calls).toEqual(["restart p1", "get p1", "restart p1"]);
    const failed = rig({ actions: [timeout, answer(pod({ status: "STARTING" }))], reads: [pod({ status: "ERROR", startedAt: "2026-01-01T00:05:00.000Z" }), running()] });
    await converge(failed.ctx, running(), inputs(), { restart: true });
    expect(failed.calls).toEqual(["restart p1", "get p1", "restart p1"]);
  });
});
