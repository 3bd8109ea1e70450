// The later revision of `/v2/serverless` bodies that the platform's own clients send (its MCP
// server from 3.3 on): `type: "QUEUE"` on create, `scaling: { type, queueDelay | requestCount }`
// and `workers.idleTimeout`, where the contract of 2026-07-22 has no `type` on create and
// `scaling: { type, value, idleTimeout }`. The platform accepts both, so the emulator rewrites
// the later spellings into the contract's before its checks; anything else it leaves alone,
// so a body mixing both spellings, or another `type`, still fails the contract's check (422).

type Body = Record<string, unknown>;

const isObject = (v: unknown): v is Body => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The body in the contract's spelling. A create asking for a load-balancing endpoint is
 * answered by `refuse` (REST creates queue-based endpoints only).
 */
export function fromLaterRevision(body: unknown, op: "create" | "update", refuse: (detail: string) => never): unknown {
  if (!isObject(body)) return body;
  const out: Body = { ...body };
  // Only the later revision's words: the contract's own QUEUE_BASED / LOAD_BALANCING on a
  // create stay an unknown property (422), as the contract says.
  if (op === "create" && out.type === "QUEUE") delete out.type;
  else if (op === "create" && out.type === "LOAD_BALANCER")
    refuse(
      `type: a REST create makes queue-based endpoints only; make a load-balancing endpoint over GraphQL (saveEndpoint with type LB), then read and change it here`,
    );

  const scaling = out.scaling;
  if (isObject(scaling) && !("value" in scaling)) {
    const later =
      scaling.type === "QUEUE_DELAY" && "queueDelay" in scaling && !("requestCount" in scaling)
        ? "queueDelay"
        : scaling.type === "REQUEST_COUNT" && "requestCount" in scaling && !("queueDelay" in scaling)
          ? "requestCount"
          : undefined;
    if (later) {
      const { [later]: value, ...rest } = scaling;
      out.scaling = { ...rest, value };
    }
  }
  const workers = out.workers;
  if (isObject(workers) && "idleTimeout" in workers) {
    const current = isObject(out.scaling) ? out.scaling : out.scaling === undefined ? {} : undefined;
    if (current && !("idleTimeout" in current)) {
      const { idleTimeout, ...rest } = workers;
      out.workers = rest;
      out.scaling = { ...current, idleTimeout };
    }
  }
  return out;
}
