// The request log (docs/emulator.md, "The control plane"): the last requests in a ring, keyed and
// keyless apart so requests without a key never push an authenticated one out, counts per
// operation since start, and a key only as its fingerprint.
import { fingerprint, RequestLog, type RequestLogEntry } from "../../../../src/emulator/core/request-log";

const entry = (op: string, key: string | null = "key_1"): RequestLogEntry => ({
  at: "2026-01-01T00:00:00.000Z",
  method: "GET",
  path: `/v2/${op}`,
  status: 200,
  key,
  op,
  dropped: false,
});

test("a fingerprint is the same for one key, differs between keys and holds nothing of the key", () => {
  const key = "cp_secret_0123456789abcdef";
  expect(fingerprint(key)).toMatch(/^key_[0-9a-f]{8}$/);
  expect(fingerprint(key)).toBe(fingerprint(key));
  expect(fingerprint(`${key}x`)).not.toBe(fingerprint(key));
  expect(fingerprint(key)).not.toContain("secret");
});

test("the ring keeps the last `capacity` keyed entries, oldest first", () => {
  const log = new RequestLog(3);
  for (const op of ["a", "b", "c", "d", "e"]) log.record(entry(op), [op]);
  expect(log.entries().map((e) => e.op)).toEqual(["c", "d", "e"]);
});

test("keyless entries fill a ring of their own: any number of them leaves the keyed ones in place", () => {
  const log = new RequestLog(2);
  log.record(entry("createNetworkVolume"), ["createNetworkVolume"]);
  for (let i = 0; i < 10; i++) log.record(entry(`unknown${i}`, null), []);
  expect(log.entries().map((e) => e.op)).toEqual(["createNetworkVolume", "unknown8", "unknown9"]);
});

test("entries interleave both rings in the order they came", () => {
  const log = new RequestLog(5);
  log.record(entry("k1"), []);
  log.record(entry("n1", null), []);
  log.record(entry("k2"), []);
  log.record(entry("n2", null), []);
  log.record(entry("n3", null), []);
  log.record(entry("k3"), []);
  expect(log.entries().map((e) => e.op)).toEqual(["k1", "n1", "k2", "n2", "n3", "k3"]);
});

test("counts tally every operation ever recorded, each root field of a GraphQL request too, past what the ring keeps", () => {
  const log = new RequestLog(1);
  log.record(entry("listPods"), ["listPods"]);
  log.record(entry("listPods"), ["listPods"]);
  log.record(entry("myself,saveEndpoint"), ["myself", "saveEndpoint"]);
  log.record(entry("x", null), []);
  expect(log.counts()).toEqual({ listPods: 2, myself: 1, saveEndpoint: 1 });
  expect(log.entries()).toHaveLength(2);
});

test("entries are copies", () => {
  const log = new RequestLog(2);
  log.record(entry("a"), []);
  log.entries()[0].status = 500;
  expect(log.entries()[0].status).toBe(200);
});
