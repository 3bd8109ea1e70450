// Registry credentials (registries.ts) against a scripted loopback server: the paths, the create
// that takes only a credential made after its own list, and the write-only username and
// password masked in every error and log line.
import { ConflictError, InternalServerError, RequestValidationError, UnprocessableEntityError } from "../../../src/client";
import { loopbackClients, type SeenRequest } from "../../helpers/loopback";

const { setup } = loopbackClients("cp_test_loopback_key_0013");

const body = (r: SeenRequest) => JSON.parse(r.body);

describe("registries", () => {
  const CREDENTIALS = { name: "private", username: "robot$deployer", password: "s3cr3t-Pa55\"word/+" };

  test("create POSTs name, username and password; get, list and delete use their paths", async () => {
    const { srv, cp } = await setup((r) =>
      r.method === "DELETE"
        ? { status: 204 }
        : r.path === "/v2/registries"
          ? r.method === "POST"
            ? { status: 201, body: { id: "reg-1", name: "private" } }
            : { status: 200, body: { registries: [{ id: "reg-1", name: "private" }] } }
          : { status: 200, body: { id: "reg-1", name: "private" } },
    );
    const created = await cp.registries.create(CREDENTIALS);
    expect(created).toEqual({ id: "reg-1", name: "private" });
    await expect(cp.registries.get("reg 1")).resolves.toEqual(created);
    await expect(cp.registries.list()).resolves.toEqual([created]);
    await expect(cp.registries.delete("reg-1")).resolves.toBeUndefined();
    expect(srv.seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /v2/registries",
      "POST /v2/registries",
      "GET /v2/registries/reg%201",
      "GET /v2/registries",
      "DELETE /v2/registries/reg-1",
    ]);
    expect(body(srv.seen[1])).toEqual(CREDENTIALS);
  });

  test("an ambiguous create finds the new credential by name, never an older one of the same name", async () => {
    const registries = [{ id: "reg-old", name: "private" }];
    const { srv, cp } = await setup((r) => {
      if (r.method === "GET") return { status: 200, body: { registries } };
      registries.push({ id: "reg-new", name: "private" });
      return { destroy: true };
    });
    await expect(cp.registries.create(CREDENTIALS)).resolves.toEqual({ id: "reg-new", name: "private" });
    expect(srv.count("POST", "/v2/registries")).toBe(1);
  });

  test("an ambiguous create that made nothing is not answered with an older credential of the same name", async () => {
    const { srv, cp } = await setup((r) =>
      r.method === "GET"
        ? { status: 200, body: { registries: [{ id: "reg-old", name: "private" }] } }
        : srv.count("POST", "/v2/registries") === 1
          ? { status: 503, body: { title: "Service Unavailable", status: 503, detail: "down" } }
          : { status: 201, body: { id: "reg-new", name: "private" } },
    );
    await expect(cp.registries.create(CREDENTIALS)).resolves.toEqual({ id: "reg-new", name: "private" });
    expect(srv.count("POST", "/v2/registries")).toBe(2);
  });

  test("username and password never reach an error or a log line, even when the server echoes them", async () => {
    const lines: string[] = [];
    // A server that echoes the request body back (raw and as JSON) in every error it writes.
    const { cp } = await setup(
      (r) =>
        r.method === "GET"
          ? { status: 200, body: { registries: [] } }
          : {
              status: 422,
              body: { title: "Unprocessable Entity", status: 422, detail: `rejected ${r.body}`, errors: [`$.password: '${CREDENTIALS.password}' too weak`] },
            },
      { logger: { debug: (line) => lines.push(line) } },
    );
    const err = await cp.registries.create(CREDENTIALS).catch((e) => e);
    expect(err).toBeInstanceOf(UnprocessableEntityError);
    const seen = [err.message, err.detail, ...err.errors, JSON.stringify(err), String(err.stack), ...lines].join("\n");
    expect(seen).toContain("[REDACTED]");
    for (const secret of [CREDENTIALS.username, CREDENTIALS.password, JSON.stringify(CREDENTIALS.password).slice(1, -1)]) {
      expect(seen).not.toContain(secret);
    }
    expect(lines.length).toBeGreaterThan(0);
  });

  test("a short password is masked where it stands as a token of its own", async () => {
    const { cp } = await setup((r) =>
      r.method === "GET"
        ? { status: 200, body: { registries: [] } }
        : { status: 400, body: { title: "Bad Request", status: 400, detail: "user bob with password x9 rejected" } },
    );
    const err = await cp.registries.create({ name: "private", username: "bob", password: "x9" }).catch((e) => e);
    expect(err.message).toContain("user [REDACTED] with password [REDACTED] rejected");
  });

  test("an ambiguous create whose look-up fails says so without the credentials", async () => {
    // The list before the create answers; everything after fails, echoing the password.
    const { srv, cp } = await setup((_r, i) =>
      i === 0 ? { status: 200, body: { registries: [] } } : { status: 500, body: { title: "Internal", status: 500, detail: `boom ${CREDENTIALS.password}` } },
    );
    const err = await cp.registries.create(CREDENTIALS).catch((e) => e);
    expect(err.name).toBe("AmbiguousRequestError");
    expect(err.cause).toBeInstanceOf(InternalServerError);
    expect(`${err.message} ${err.cause.message}`).not.toContain(CREDENTIALS.password);
    expect(srv.count("POST", "/v2/registries")).toBe(1);
  });

  test("invalid params fail before anything is sent, without echoing the values", async () => {
    const { srv, cp } = await setup(() => ({ status: 201, body: { id: "r", name: "n" } }));
    const err = await cp.registries.create({ name: "n", username: "", password: "hunter2-secret", extra: 1 } as never).catch((e) => e);
    expect(err).toBeInstanceOf(RequestValidationError);
    expect(err.message).toContain("username must be at least 1 character(s) long");
    expect(err.message).toContain("extra is not an allowed property");
    expect(err.message).not.toContain("hunter2-secret");
    expect(srv.seen).toHaveLength(0);
  });

  test("deleting a credential a pod uses is a ConflictError", async () => {
    const { cp } = await setup(() => ({ status: 409, body: { title: "Conflict", status: 409, detail: "registry reg-1 is used by pod pod-1" } }));
    await expect(cp.registries.delete("reg-1")).rejects.toBeInstanceOf(ConflictError);
  });
});
