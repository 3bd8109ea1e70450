/**
 * Engine-faithful harness: the Pulumi CLI cannot be installed here, so this tool plays the
 * engine's side around Pulumi's own dynamic-provider plugin. Tests, benchmarks and scripts
 * import it from here.
 *
 * Files, one concern each: `wire.ts` (the engine's marshalling: secrets, unknowns),
 * `capture.ts` + `capture-runner.js` (programs under mocks), `fake-engine.ts` (the engine's
 * gRPC service), `plugin.ts` (the plugin process and each provider call), `errors.ts` (a failed
 * call as the engine reads it), `stack.ts` (the engine's call sequences and state), `urn.ts`,
 * `proto.ts` (the SDK's own gRPC stubs), `project.ts` (where the plugin runs; `programs/`).
 *
 * What is real: the plugin (`@pulumi/pulumi/cmd/dynamic-provider`, resolved from the project
 * directory as the engine's `pulumi-resource-pulumi-nodejs` script does), started on the repo's
 * Node 22 with the engine address as its only argument, the project directory as cwd, and the
 * environment the engine gives it (`PULUMI_NODEJS_PROJECT`, `PULUMI_PROJECT`, `PULUMI_CONFIG`);
 * the gRPC stubs and protobuf classes that @pulumi/pulumi ships; the `__provider` text, produced
 * by the SDK's own serializer under `pulumi.runtime.setMocks` (see `captureProgram`).
 * What is played: the engine's choice and order of calls, and how it marshals properties
 * (Configure gets secrets as signature objects; the CRUD calls get them in plain text, because
 * the plugin's ConfigureResponse says acceptSecrets=false; unknowns only in preview).
 *
 * API
 * ```ts
 * const regs = await captureProgram(() => { new Pod("gpu", {...}) }, { project, stack, config });
 * const regs = await captureProgramFile("examples/quickstart/index.js", { cwd, config }); // child node
 * const plugin = await ProviderPlugin.start({ cwd: EXAMPLE_DIR, project: "quickstart", config });
 * await plugin.configure(config, secretKeys);            // what the engine does once per plugin
 * const stack = new EngineStack(plugin, { project, stack: "dev" });
 * await stack.preview(regs)  // Check (+ Diff for existing), unknowns allowed; nothing applied
 * await stack.up(regs)       // Check; Create | Diff -> Update | replace (Check again, then
 *                            // Create, the old one deleted at the end with the removed ones,
 *                            // or Delete+Create with deleteBeforeReplace); deletes
 * await stack.refresh()      // Read(id, old outputs, old inputs)
 * await stack.destroy()      // Delete in reverse order
 * await stack.refresh({ parallel: 16 })  // steps 16 at a time, as the engine's --parallel
 * stack.resources            // the state: urn -> { id, inputs, outputs, initErrors }
 * stack.calls                // every gRPC call made, in order: "Check urn", "Create urn", ...
 * plugin.transcript()        // stdout + stderr + engine Log messages, to scan for secrets
 * await plugin.stop();
 * ```
 * Each `up`/`preview`/... returns `{ steps, failures?, error? }`: a step is `{ urn, op, diff? }`;
 * `failures` are Check failures (`{ property, reason }`), which stop the operation as they stop
 * the engine; an error is a `ProviderCallError` with the plugin's message and, for a create or
 * update that failed after the resource came to exist, `initFailure: { id, outputs, reasons }`
 * (the engine keeps that id, with those outputs, in state; so does `EngineStack`).
 *
 * How the plugin finds this package: it loads `__provider` with require-from-string, whose
 * module paths start at the plugin's cwd, so `require("pulumi-computeplatform")` resolves from
 * the project directory, as from a user's repo. Here the project directory is an example
 * (`examples/quickstart`): the root package.json declares `examples/*` as workspaces and each
 * example depends on `"pulumi-computeplatform": "file:../.."`, so `npm install` links
 * node_modules/pulumi-computeplatform to the repo root and the name resolves to `dist/`
 * through the exports map. So the plugin runs the built package: `npm run build` first
 * (`npm test` does it in `pretest`).
 *
 * Logs: the engine passes its address only as the plugin's argument, which the Node.js plugin
 * ignores; `pulumi.log` inside a provider therefore prints to the plugin's stdout, which the
 * engine relays to the user. `transcript()` holds stdout, stderr and any engine Log call.
 *
 * Not modelled: dependency-driven ordering of parallel steps (one resource at a time unless an
 * operation is given `parallel`, then that many at once, started in registration order;
 * deletes in reverse), `protect`, `replaceOnChanges`, dependency-driven ordering of deletes, resource
 * references. Preview never calls Create: the plugin does not support provider previews.
 */
export { type CaptureOptions, captureProgram, captureProgramFile, type Registration } from "./capture";
export { ProviderCallError } from "./errors";
export { type EngineLog, FakeEngine } from "./fake-engine";
export { type CheckFailure, type DiffResult, type PluginOptions, ProviderPlugin } from "./plugin";
export { capturePods, POD_PROGRAM, PROJECT, PROJECT_DIR, SECRET_KEYS } from "./project";
export { EngineStack, ignoreChanges, type OperationResult, type RunOptions, type StateResource, type Step, type StepOp } from "./stack";
export { urnOf } from "./urn";
export { isSecret, reveal, SECRET_SIG, secret, SIG_KEY, toStruct, UNKNOWN } from "./wire";
