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
