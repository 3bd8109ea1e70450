// The emulator's list order (src/emulator/core/http/list-order.ts): `created` answers as made;
// `shuffled` answers the account's lists (REST and GraphQL's myself.endpoints) in a new, seeded
// order, and leaves every other answer and every error alone.
import { ListOrdering } from "../../../../../src/emulator/core/http/list-order";

const items = Array.from({ length: 20 }, (_, i) => ({ id: `p${i}` }));

test("created leaves a list as made; shuffled reorders it, keeps every item, and differs from answer to answer", () => {
  const reply = { status: 200, body: { pods: items } };
  expect(new ListOrdering("created").apply("listPods", reply)).toBe(reply);
  const shuffled = new ListOrdering("shuffled", 7);
  const a = (shuffled.apply("listPods", reply).body as { pods: typeof items }).pods;
  const b = (shuffled.apply("listPods", reply).body as { pods: typeof items }).pods;
  expect([...a].sort((x, y) => x.id.localeCompare(y.id))).toEqual([...items].sort((x, y) => x.id.localeCompare(y.id)));
  expect(a).not.toEqual(items);
  expect(b).not.toEqual(a);
  // The same seed, the same orders: a run is reproducible.
  expect((new ListOrdering("shuffled", 7).apply("listPods", reply).body as { pods: typeof items }).pods).toEqual(a);
});

test("GraphQL's myself.endpoints is reordered; other answers and errors are not", () => {
  const shuffled = new ListOrdering("shuffled", 3);
  const gql = { status: 200, body: { data: { myself: { endpoints: items, serverlessDiscount: null } } } };
  const out = shuffled.apply("graphql", gql).body as { data: { myself: { endpoints: typeof items; serverlessDiscount: null } } };
  expect(out.data.myself.endpoints).not.toEqual(items);
  expect(out.data.myself.serverlessDiscount).toBeNull();
  const releases = { status: 200, body: { releases: items } };
  expect(shuffled.apply("listEndpointReleases", releases)).toBe(releases);
  const failed = { status: 500, body: { pods: items } };
  expect(shuffled.apply("listPods", failed)).toBe(failed);
  expect(() => new ListOrdering("random" as never)).toThrow(/listOrder must be "created" or "shuffled"/);
});
