/** A failure a handler answers with: becomes an `application/problem+json` body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly errors?: string[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

export const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  421: "Misdirected Request",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

export function problem(status: number, detail: string, errors?: string[]): HttpError {
  return new HttpError(status, TITLES[status] ?? "Error", detail, errors);
}

/** 422 for body contract violations; the detail repeats the list so a log line is enough. */
export function contractViolation(errors: string[]): HttpError {
  return problem(422, `request body does not match the contract: ${errors.join("; ")}`, errors);
}
