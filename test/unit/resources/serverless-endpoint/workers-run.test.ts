// What an endpoint's workers run, as its program declared it (workers-run.ts): the Template's
// fingerprint when templateId is a Template's own id output, else the REST container, else the
// template id; only a digest is kept (a container's env holds credentials). And the account the
// program put the endpoint on, where its smoke test sends the job.
import * as pulumi from "@pulumi/pulumi";
import { noteTemplate, templateRolls } from "../../../../src/resources/inputs/template-ref";
import { recordKey } from "../../../../src/resources/lifecycle/applied";
import { accountOfEndpoint, noteWorkersRun, workersRun } from "../../../../src/resources/serverless-endpoint/workers-run";

const valueOf = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply((v) => (resolve(v), v)));
const rolls = templateRolls({ image: "img:1", args: "", ports: [], env: { TOKEN: "t0k3n" }, registry: null });

describe("noteWorkersRun and workersRun", () => {
  it("an endpoint on a Template of this program: the digest of what the Template's workers run", async () => {
    const id = pulumi.output("tpl-1");
    noteTemplate(id, { resourceName: "web", serverless: pulumi.output(true), rolls: pulumi.output(rolls) });
    const endpoint = {};
    noteWorkersRun(endpoint, { templateId: id, container: { image: "ignored" } });
    expect(await valueOf(workersRun(endpoint)!)).toBe(recordKey(rolls));
  });

  it("a Template read with .get (no fingerprint) or a plain id: the container if any, else the id", async () => {
    const id = pulumi.output("tpl-2");
    noteTemplate(id, { resourceName: "read", serverless: pulumi.output(true) });
    const onGet = {};
    noteWorkersRun(onGet, { templateId: id });
    expect(await valueOf(workersRun(onGet)!)).toBe(recordKey("tpl-2"));
    const rest = {};
    const container = { image: "img:3", env: { PASSWORD: "pw-1" } };
    noteWorkersRun(rest, { templateId: "tpl-3", container });
    const digest = await valueOf(workersRun(rest)!);
    expect(digest).toBe(recordKey(container));
    expect(digest).not.toContain("pw-1");
    const plain = {};
    noteWorkersRun(plain, { templateId: "tpl-3" });
    expect(await valueOf(workersRun(plain)!)).toBe(recordKey("tpl-3"));
  });

  it("nothing declared is the digest of null; an object never noted has none", async () => {
    const bare = {};
    noteWorkersRun(bare, {});
    expect(await valueOf(workersRun(bare)!)).toBe(recordKey(null));
    expect(workersRun({})).toBeUndefined();
  });
});

describe("accountOfEndpoint", () => {
  it("the account the program gave the endpoint; none for the stack's account or an object never noted", () => {
    const account = { name: "team-b", apiKey: pulumi.secret("key-b") };
    const own = {};
    noteWorkersRun(own, { templateId: "tpl-1", account });
    expect(accountOfEndpoint(own)).toBe(account);
    const onStack = {};
    noteWorkersRun(onStack, { templateId: "tpl-1" });
    expect(accountOfEndpoint(onStack)).toBeUndefined();
    expect(accountOfEndpoint({})).toBeUndefined();
  });
});
