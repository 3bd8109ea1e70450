// Runs a Pulumi program under `pulumi.runtime.setMocks` and records every RegisterResource
// request exactly as the SDK sends it to the engine: inputs in their wire form (secrets as
// signature objects, `__provider` as the serialized text the engine stores in state) and the
// options the engine acts on. Plain CommonJS so that the same code runs in-process under jest and
// in a child `node` (no test transform), where function serialization sees the program's real
// compiled text.
"use strict";

/**
 * @param {() => unknown | Promise<unknown>} program
 * @param {{ project?: string, stack?: string, preview?: boolean, config?: Record<string, string>, secretKeys?: string[] }} opts
 */
async function capture(program, opts = {}) {
  // The copy of the SDK the program itself loads: its module state holds the mocks.
  const pulumi = require(require.resolve("@pulumi/pulumi", { paths: [opts.cwd ?? process.cwd()] }));
  const registrations = [];
  // Transforms the program registers for every resource (`pulumi.runtime.registerResourceTransform`).
  const stackTransforms = [];
  const mocks = {
    newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
    call: (args) => args.inputs,
    registerTransform: (t) => stackTransforms.push(t),
  };
  await pulumi.runtime.setMocks(mocks, opts.project ?? "project", opts.stack ?? "stack", opts.preview ?? false);
  pulumi.runtime.setAllConfig(opts.config ?? {}, opts.secretKeys ?? []);
  const monitor = pulumi.runtime.getMonitor();
  const register = monitor.registerResource.bind(monitor);
  const read = monitor.readResource.bind(monitor);
  // A `.get`: the engine reads the object by id with the properties the SDK sent.
  monitor.readResource = (req, callback) => {
    registrations.push({
      type: req.getType(),
      name: req.getName(),
      custom: true,
      read: req.getId(),
      inputs: req.getProperties()?.toJavaScript() ?? {},
      options: {
        deleteBeforeReplace: false,
        protect: false,
        ignoreChanges: [],
        replaceOnChanges: [],
        additionalSecretOutputs: req.getAdditionalsecretoutputsList?.() ?? [],
        dependencies: req.getDependenciesList(),
        aliases: [],
      },
    });
    return read(req, callback);
  };
  const record = (req) =>
    registrations.push({
      type: req.getType(),
      name: req.getName(),
      custom: req.getCustom(),
      inputs: req.getObject()?.toJavaScript() ?? {},
      options: {
        deleteBeforeReplace: req.getDeletebeforereplace(),
        protect: req.getProtect(),
        ignoreChanges: req.getIgnorechangesList(),
        replaceOnChanges: req.getReplaceonchangesList(),
        additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
        dependencies: req.getDependenciesList(),
        retainOnDelete: req.getRetainondelete?.() ?? false,
        importId: req.getImportid() || undefined,
        // Alias specs as the SDK sends them (name, type, stack, project; "" for "the same"),
        // or plain alias URNs from an SDK that sends those.
        aliases: [
          ...(req.getAliasesList?.() ?? []).map((a) => {
            if (a.hasUrn?.() && a.getUrn()) return { urn: a.getUrn() };
            const s = a.getSpec();
            return { name: s.getName(), type: s.getType(), stack: s.getStack(), project: s.getProject(), parentUrn: s.getParenturn?.() || undefined };
          }),
          ...(req.getAliasurnsList?.() ?? []).map((urn) => ({ urn })),
        ],
      },
    });
  // The engine runs the transforms before anything else sees a registration (source_eval.go,
  // RegisterResource: the resource's own `transforms`, then the stack's), and takes their
  // properties as the resource's inputs: so does the rig, before it records and registers it.
  // (Parents' transforms and changed options are not played.)
  monitor.registerResource = (req, callback) => {
    const own = (req.getTransformsList?.() ?? []).map((cb) => monitor.transformCallbacks?.get(cb.getToken())).filter(Boolean);
    const transforms = [...own, ...stackTransforms];
    if (transforms.length === 0) {
      record(req);
      return register(req, callback);
    }
    transformed(pulumi, req, transforms).then(
      () => {
        record(req);
        register(req, callback);
      },
      (err) => callback(err),
    );
  };
  try {
    await program();
    await pulumi.runtime.waitForRPCs();
  } finally {
    monitor.registerResource = register;
    monitor.readResource = read;
  }
  return registrations;
}

/** Runs `transforms` in order on the registration's properties and puts the result in `req`. */
async function transformed(pulumi, req, transforms) {
  let props = pulumi.runtime.deserializeProperties(req.getObject());
  for (const t of transforms) {
    const result = await t({ type: req.getType(), name: req.getName(), custom: req.getCustom(), props, opts: {} });
    if (result?.props) props = result.props;
  }
  const { Struct } = require(require.resolve("google-protobuf/google/protobuf/struct_pb.js", { paths: [require.resolve("@pulumi/pulumi")] }));
  req.setObject(Struct.fromJavaScript(await pulumi.runtime.serializeProperties(`transform ${req.getName()}`, props)));
}

/**
 * Runs `program` under mocks backed by a stack's state (each resource answered with its id and
 * outputs from `opts.state`, `{ type, name, id, outputs }` each), the engine's part when it runs
 * the program during an up, and returns its exports once settled: `{ value, secret }` each. A
 * function of the program that failed (a smoke test's job) rejects.
 * @param {() => unknown | Promise<unknown>} program
 */
async function stackExports(program, opts = {}) {
  const pulumi = require(require.resolve("@pulumi/pulumi", { paths: [opts.cwd ?? process.cwd()] }));
  const state = opts.state ?? [];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        const live = state.find((r) => r.type === args.type && r.name === args.name);
        return { id: live?.id ?? `${args.name}-id`, state: live?.outputs ?? args.inputs };
      },
      call: (args) => args.inputs,
    },
    opts.project ?? "project",
    opts.stack ?? "stack",
    false,
  );
  pulumi.runtime.setAllConfig(opts.config ?? {}, opts.secretKeys ?? []);
  const exported = (await program()) ?? {};
  const out = {};
  for (const [name, value] of Object.entries(exported)) {
    if (name === "__esModule") continue;
    const o = pulumi.output(value);
    out[name] = { value: await o.promise(), secret: await o.isSecret };
  }
  return out;
}

module.exports = { capture, stackExports };

/** Whether Node loads `file` as an ES module: `.mjs`, or `.js` under a package.json of type module. */
function isModule(file) {
  const fs = require("node:fs");
  const path = require("node:path");
  if (file.endsWith(".mjs")) return true;
  if (!file.endsWith(".js")) return false;
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (fs.existsSync(manifest)) return JSON.parse(fs.readFileSync(manifest, "utf8")).type === "module";
    if (path.dirname(dir) === dir) return false;
  }
}

// Child mode: `node capture-runner.js <program.js> <json options>` prints one JSON line.
if (require.main === module) {
  const path = require("node:path");
  const [file, json] = process.argv.slice(2);
  // A program module runs on load; one that exports a function is run the way the Node.js
  // language host runs it. As the host does, an ES module (`.mjs`, or a package.json of
  // `"type": "module"` above it) is loaded with import(), anything else with require.
  const program = async () => {
    const exported = isModule(path.resolve(file)) ? await import(require("node:url").pathToFileURL(path.resolve(file)).href) : require(path.resolve(file));
    const main = typeof exported === "function" ? exported : exported?.default;
    return typeof main === "function" ? main() : exported;
  };
  const opts = JSON.parse(json ?? "{}");
  (opts.exports ? stackExports(program, opts).then((outputs) => ({ outputs })) : capture(program, opts).then((registrations) => ({ registrations }))).then(
    (result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
    },
    (err) => {
      process.stderr.write(`${err?.stack ?? err}\n`);
      process.exit(1);
    },
  );
}
