import { RequestValidationError } from "./errors";

/**
 * A path segment from a caller's id, the one way every id enters a URL. Percent-encoding keeps
 * `/`, `?` and `#` from changing the path, but not the dot segments: `.` and `..` pass
 * `encodeURIComponent` unchanged and URL parsing then removes them, so `pods.delete("..")` was
 * sent as `DELETE /v2/` and `models.runSync("..")` as `POST /runsync`. No platform id is `.` or
 * `..`: both are refused, like an empty id, before anything is sent.
 */
export function pathSegment(id: string, field = "id"): string {
  if (typeof id !== "string" || id.length === 0) {
    throw new RequestValidationError(field, [{ path: field, message: "must be a non-empty string" }]);
  }
  if (id === "." || id === "..") {
    throw new RequestValidationError(field, [{ path: field, message: `must not be ${JSON.stringify(id)} (a dot segment would move the request's path)` }]);
  }
  return encodeURIComponent(id);
}
