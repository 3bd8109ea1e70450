// The route table: a path template matched segment by segment, a literal segment before a
// parameter, the first registered after that, and 405 with Allow for a path served under other
// methods only (docs/emulator.md, "Paths").
import { Router } from "../../../../../src/emulator/core/http/router";
import { ok, type Route } from "../../../../../src/emulator/core/http/types";

const route = (method: Route["method"], path: string, op: string): Route => ({ method, path, op, run: () => ok(200) });

function router(): Router {
  const r = new Router();
  r.add([
    route("GET", "/v2/pods", "listPods"),
    route("GET", "/v2/pods/{id}", "getPod"),
    route("PATCH", "/v2/pods/{id}", "updatePod"),
    route("POST", "/v2/pods/{id}/action", "podAction"),
    route("GET", "/v2/catalog/gpus/{id}", "getGpu"),
    route("GET", "/v2/{group}/special", "anyGroupSpecial"),
    route("GET", "/v2/pods/special", "podsSpecial"),
  ]);
  return r;
}

const op = (m: ReturnType<Router["match"]>) => (m && "route" in m ? m.route.op : m);

test("a parameter binds its segment, percent-decoded (a GPU id holds spaces, '/' arrives escaped)", () => {
  expect(router().match("GET", "/v2/catalog/gpus/NVIDIA%20GeForce%20RTX%204090")).toEqual({
    route: expect.objectContaining({ op: "getGpu" }),
    params: { id: "NVIDIA GeForce RTX 4090" },
  });
  expect(router().match("GET", "/v2/catalog/gpus/a%2Fb")).toMatchObject({ params: { id: "a/b" } });
});

test("the route with more literal segments wins, whichever was registered first", () => {
  expect(op(router().match("GET", "/v2/pods/special"))).toBe("podsSpecial");
  expect(op(router().match("GET", "/v2/volumes/special"))).toBe("anyGroupSpecial");
  expect(op(router().match("GET", "/v2/pods/p1"))).toBe("getPod");
});

test("of two routes equally literal, the first registered wins", () => {
  const r = new Router();
  r.add([route("GET", "/a/{x}", "first"), route("GET", "/a/{y}", "second")]);
  expect(r.match("GET", "/a/1")).toEqual({ route: expect.objectContaining({ op: "first" }), params: { x: "1" } });
});

test("empty segments are not segments: //v2//pods/ is /v2/pods", () => {
  expect(op(router().match("GET", "//v2//pods/"))).toBe("listPods");
});

test("a path served under other methods only answers with the methods it has", () => {
  expect(router().match("DELETE", "/v2/pods/p1")).toEqual({ allow: ["GET", "PATCH"] });
  expect(router().match("GET", "/v2/pods/p1/action")).toEqual({ allow: ["POST"] });
});

test("a path no route has, or one of another length, is unrouted; so is a malformed %-escape", () => {
  expect(router().match("GET", "/v2/nothing")).toBeUndefined();
  expect(router().match("GET", "/v2/pods/p1/action/more")).toBeUndefined();
  expect(router().match("GET", "/v2/pods/%E0%A4%A")).toBeUndefined();
});

test("routes() lists every route in the order added", () => {
  expect(router().routes().map((r) => r.op)).toEqual(["listPods", "getPod", "updatePod", "podAction", "getGpu", "anyGroupSpecial", "podsSpecial"]);
});
