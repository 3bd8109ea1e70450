// Objects that other objects must name on the platform: an endpoint's
// `templateId` is one of the owner's serverless templates, a pod's `registry` one of the
// owner's registry credentials. Plain HTTP, so any test can make them whatever it tests.

async function post(url: string, key: string, path: string, body: unknown): Promise<{ id: string }> {
  const res = await fetch(`${url.replace(/\/+$/, "")}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST ${path} -> ${res.status}: ${text}`);
  return JSON.parse(text) as { id: string };
}

/** Creates a serverless template and returns its id (what `saveEndpoint` needs as `templateId`). */
export async function createServerlessTemplate(
  url: string,
  key: string,
  body: Record<string, unknown> = {},
): Promise<string> {
  const t = await post(url, key, "/v2/templates", { name: "worker", image: "worker:1", serverless: true, ...body });
  return t.id;
}

/** Creates a registry credential and returns its id (what a pod's `registry` names). */
export async function createRegistry(url: string, key: string, name = "private"): Promise<string> {
  const r = await post(url, key, "/v2/registries", { name, username: "robot", password: "fixture-password" });
  return r.id;
}

/**
 * Makes `n` endpoints of `templateId` (no workers: workersMin and workersMax 0) named
 * `<prefix><i>`, 100 to a document of aliased `saveEndpoint`s: an account of hundreds of
 * endpoints in a few requests (the key's quotas must take n). Returns their ids in order.
 */
export async function seedEndpoints(url: string, key: string, templateId: string, n: number, prefix = "seeded"): Promise<string[]> {
  const ids: string[] = [];
  for (let from = 0; from < n; from += 100) {
    const batch = Array.from({ length: Math.min(100, n - from) }, (_, i) => from + i);
    const doc = `mutation { ${batch
      .map((i) => `e${i}: saveEndpoint(input: { name: ${JSON.stringify(`${prefix}${i}`)}, gpuIds: "AMPERE_16", templateId: ${JSON.stringify(templateId)}, workersMin: 0, workersMax: 0 }) { id }`)
      .join(" ")} }`;
    const res = await fetch(`${url.replace(/\/+$/, "")}/graphql`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ query: doc }),
    });
    const body = (await res.json()) as { data?: Record<string, { id: string } | null>; errors?: unknown };
    if (res.status !== 200 || body.errors) throw new Error(`seeding endpoints -> ${res.status}: ${JSON.stringify(body.errors ?? body).slice(0, 500)}`);
    ids.push(...batch.map((i) => body.data![`e${i}`]!.id));
  }
  return ids;
}

/** The GraphQL requests the emulator logged from entry `from` on, as `<op> <status>` (a document refused before it ran logs op `graphql`). */
export function graphqlAnswers(emu: { requestLog(): { path: string; op?: string; status: number }[] }, from: number): string[] {
  return emu
    .requestLog()
    .slice(from)
    .filter((e) => e.path === "/graphql")
    .map((e) => `${e.op} ${e.status}`);
}
