// Every id enters a URL through pathSegment (path.ts): encoded, so `/`, `?` and `#` stay inside
// the segment, and refused when empty or a dot segment, which URL parsing would remove and so
// send the request to another path (`DELETE /v2/` for `pods.delete("..")`).
import { RequestValidationError } from "../../../../src/client/core/errors";
import { pathSegment } from "../../../../src/client/core/path";

describe("pathSegment", () => {
  it("encodes what would move the path, and keeps a plain id as it is", () => {
    expect(pathSegment("abc123")).toBe("abc123");
    expect(pathSegment("a/b?c#d e")).toBe("a%2Fb%3Fc%23d%20e");
    expect(pathSegment("...")).toBe("...");
    expect(new URL(`http://h/v2/pods/${pathSegment("../x")}`).pathname).toBe("/v2/pods/..%2Fx");
  });

  it.each([".", ".."])("refuses the dot segment %j, naming the field and why", (id) => {
    const err = (() => {
      try {
        pathSegment(id, "podId");
      } catch (e) {
        return e;
      }
    })() as RequestValidationError;
    expect(err).toBeInstanceOf(RequestValidationError);
    expect(err.issues).toEqual([{ path: "podId", message: `must not be ${JSON.stringify(id)} (a dot segment would move the request's path)` }]);
    expect(err.message).toContain("Invalid podId: podId must not be");
  });

  it("refuses an empty id and a non-string one, under the field given or `id`", () => {
    expect(() => pathSegment("")).toThrow("Invalid id: id must be a non-empty string");
    expect(() => pathSegment(undefined as unknown as string, "endpointId")).toThrow("Invalid endpointId: endpointId must be a non-empty string");
    expect(() => pathSegment(5 as unknown as string)).toThrow(RequestValidationError);
  });
});
