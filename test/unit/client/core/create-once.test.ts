// A create that never makes two objects (create-once.ts). After a failure where the server may
// have made the object (a timeout, a 5xx, a connection cut after sending) it is looked up by name
// before anything else; only "not there" allows one more create, within maxRetries, after a
// backoff on the injected clock. A failure where the server provably did nothing is the attempt's
// own business (the transport retries it) and passes through untouched.
import { createOnce } from "../../../../src/client/core/create-once";
import {
  AmbiguousRequestError,
  BadRequestError,
  ConnectionError,
  InternalServerError,
  makeApiError,
  TimeoutError,
} from "../../../../src/client/core/errors";
import { Transport } from "../../../../src/client/core/transport";
import { FakeClock } from "../../../helpers/fake-clock";

const KEY = "cp_key_0123456789abcdef";
const URL_ = "http://127.0.0.1:1/v2/pods";

function rig(maxRetries = 2) {
  const clock = new FakeClock();
  const lines: string[] = [];
  const transport = new Transport({
    apiKey: KEY,
    timeoutMs: 1000,
    maxRetries,
    maxRetryDelayMs: 1000,
    clock,
    pacing: false,
    logger: { debug: (l) => lines.push(l) },
    random: () => 0.5,
    backoff: { baseDelayMs: 100, maxBackoffMs: 1000 },
  });
  return { clock, lines, transport };
}

const timeout = () => new TimeoutError("POST", URL_, 1000);
const serverError = () => makeApiError({ status: 503, title: "Unavailable", detail: "", errors: [], method: "POST", url: URL_ });
const cutAfterSending = () => new ConnectionError("socket hang up", { method: "POST", url: URL_, code: "UND_ERR_SOCKET", requestSent: true });
const neverSent = () => new ConnectionError("refused", { method: "POST", url: URL_, code: "ECONNREFUSED", requestSent: false });

/** An attempt that fails with each of `failures` in turn, then answers `made`. */
function attempts<T>(made: T, ...failures: Error[]) {
  const calls = { n: 0 };
  const attempt = async () => {
    const f = failures[calls.n++];
    if (f) throw f;
    return made;
  };
  return { calls, attempt };
}

describe("createOnce", () => {
  it("a create that succeeds is the answer; nothing is looked up", async () => {
    const { transport, clock } = rig();
    const lookup = jest.fn();
    await expect(createOnce({ transport, what: "pod", name: "p", attempt: async () => "made", lookup })).resolves.toBe("made");
    expect(lookup).not.toHaveBeenCalled();
    expect(clock.sleeps).toEqual([]);
  });

  it.each([
    ["a 400", () => makeApiError({ status: 400, title: "Bad", detail: "no", errors: [], method: "POST", url: URL_ })],
    ["a connection never made", neverSent],
    ["an error of the program", () => new TypeError("bug")],
  ])("%s is not ambiguous: it passes through, with no look-up and no second create", async (_, make) => {
    const { transport } = rig();
    const err = make();
    const { calls, attempt } = attempts("made", err);
    const lookup = jest.fn();
    await expect(createOnce({ transport, what: "pod", name: "p", attempt, lookup })).rejects.toBe(err);
    expect(calls.n).toBe(1);
    expect(lookup).not.toHaveBeenCalled();
  });

  it.each([
    ["a timeout", timeout],
    ["a 5xx", serverError],
    ["a connection cut after sending", cutAfterSending],
  ])("after %s, the object found by name is the answer, and no second create is sent", async (_, make) => {
    const { transport, lines, clock } = rig();
    const { calls, attempt } = attempts("second", make());
    const lookup = jest.fn(async () => "found");
    await expect(createOnce({ transport, what: "pod", name: "p", attempt, lookup })).resolves.toBe("found");
    expect(calls.n).toBe(1);
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(clock.sleeps).toEqual([]);
    expect(lines).toEqual([expect.stringMatching(/^computeplatform: pod "p" found by name after \w+Error; not creating again$/)]);
  });

  it("not found after an ambiguous failure: one more create, after the backoff of that attempt", async () => {
    const { transport, clock } = rig();
    const { calls, attempt } = attempts("made", timeout(), serverError());
    const lookup = jest.fn(async () => undefined);
    await expect(createOnce({ transport, what: "pod", name: "p", attempt, lookup })).resolves.toBe("made");
    expect(calls.n).toBe(3);
    expect(lookup).toHaveBeenCalledTimes(2);
    // random 0.5 of a ceiling of 100 ms, then 200 ms (base 100, doubling)
    expect(clock.sleeps).toEqual([50, 100]);
  });

  it("bounded: maxRetries + 1 creates at most, then the last failure itself is the answer", async () => {
    const { transport, clock } = rig(2);
    const last = serverError();
    const { calls, attempt } = attempts("never", timeout(), cutAfterSending(), last);
    const lookup = jest.fn(async () => undefined);
    const err = await createOnce({ transport, what: "pod", name: "p", attempt, lookup }).catch((e) => e);
    expect(err).toBe(last);
    expect(err).toBeInstanceOf(InternalServerError);
    expect(calls.n).toBe(3);
    expect(lookup).toHaveBeenCalledTimes(3);
    expect(clock.sleeps).toHaveLength(2);
  });

  it("with maxRetries 0, one create: not found after it fails, the failure is the answer", async () => {
    const { transport, clock } = rig(0);
    const first = timeout();
    const { calls, attempt } = attempts("never", first);
    await expect(createOnce({ transport, what: "pod", name: "p", attempt, lookup: async () => undefined })).rejects.toBe(first);
    expect(calls.n).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });

  it("a look-up that fails too: AmbiguousRequestError naming both, with the key and write-only values masked", async () => {
    const { transport } = rig();
    const cause = timeout();
    const { calls, attempt } = attempts("never", cause);
    const lookup = async () => {
      throw new BadRequestError(`list failed for Bearer ${KEY} user s3cr3t-pass`, {
        status: 400, title: "", detail: "", errors: [], method: "GET", url: URL_, code: undefined, retryAfterMs: undefined,
      });
    };
    const err = await createOnce({ transport, what: "registry credential", name: "r", attempt, lookup, writeOnly: ["s3cr3t-pass"] }).catch((e) => e);
    expect(err).toBeInstanceOf(AmbiguousRequestError);
    expect(err.cause).toBe(cause);
    expect(err.what).toBe("registry credential");
    expect(err.objectName).toBe("r");
    expect(err.message).toContain('Creating registry credential "r" failed ambiguously (POST /v2/pods got no response within 1000 ms (timeoutMs))');
    expect(err.message).toContain("list failed for");
    expect(err.message).not.toContain(KEY);
    expect(err.message).not.toContain("s3cr3t-pass");
    expect(calls.n).toBe(1);
  });

  it("a look-up cut short by the caller's cancel ends with the cancel's reason, not an ambiguity", async () => {
    const { transport } = rig();
    const ac = new AbortController();
    const reason = new Error("cancelled by the caller");
    const { attempt } = attempts("never", timeout());
    const lookup = async () => {
      ac.abort(reason);
      throw new Error("aborted list");
    };
    await expect(createOnce({ transport, what: "pod", name: "p", attempt, lookup, signal: ac.signal })).rejects.toBe(reason);
  });

  it("a cancel during the backoff ends it: no further create", async () => {
    const { transport } = rig();
    const ac = new AbortController();
    const reason = new Error("stop");
    const { calls, attempt } = attempts("made", timeout());
    const lookup = async () => {
      ac.abort(reason);
      return undefined;
    };
    await expect(createOnce({ transport, what: "pod", name: "p", attempt, lookup, signal: ac.signal })).rejects.toBe(reason);
    expect(calls.n).toBe(1);
  });
});
