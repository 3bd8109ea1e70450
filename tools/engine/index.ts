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
 * const plugin = await startPlugin(config);  // rig.ts: start, then Configure as the engine does
 * // (ProviderPlugin.start + plugin.configure underneath; rig.ts also has startEngineRig)
 * const stack = new EngineStack(plugin, { project, stack: "dev" });
 * await stack.preview(regs)  // Check (+ Diff for existing), unknowns allowed; nothing applied
 * await stack.up(regs)       // Check; Create | Diff -> Update | replace (Check again, then
 *                            // Create, the old one deleted at the end with the removed ones,
 *                            // or Delete+Create with deleteBeforeReplace); deletes
 * await stack.up(regs, { replace: [urn] })   // pulumi up --replace <urn>
 * await stack.up(regs, { targets: [urn] })   // pulumi up --target <urn> (destroy too)
 * await stack.refresh()      // Read(id, old outputs, old inputs)
 * await stack.destroy()      // Delete, each resource after those that depend on it
 * await stack.up(regs, { parallel: Infinity })  // the engine's default --parallel; default 1
 * stack.resources            // the state: urn -> { id, inputs, outputs, initErrors, external }
 * stack.calls                // every gRPC call made, in order: "Check urn", "Create urn", ...
 * plugin.transcript()        // stdout + stderr + engine Log messages, to scan for secrets
 * await plugin.stop();
 * ```
 * Each `up`/`preview`/... returns `{ steps, failures?, error? }`: a step is `{ urn, op, diff? }`;
 * `failures` are Check failures (`{ property, reason }`), which stop the operation as they stop
 * the engine; an error is an `EngineError` with the engine's own message (protect, --target,
 * import), or a `ProviderCallError` with the plugin's message and, for a create or
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
 * Played, each cited in the code from the engine's source (pkg/resource/deploy): dependency
 * order (a registration's steps start once what it depends on is done; deletes in the engine's
 * rounds, a resource after all that depend on it) with `parallel` steps at once; `protect`
 * (delete and replace refused, with the engine's messages); `replaceOnChanges` (on the changed
 * keys a Diff names: Pulumi's dynamic-provider plugin names none, so it has no effect unless the
 * provider answers DIFF_UNKNOWN); `ignoreChanges`; `retainOnDelete`; `aliases`;
 * `deleteBeforeReplace`; the `import` option (a Read with no inputs and no state, which the
 * dynamic-provider plugin cannot serve); `.get` (a read step, External); `--replace`; `--target`;
 * `--exclude` (excluded resources neither checked, created nor deleted, nor what they depend on
 * deleted); transforms (`registerResourceTransform` and the `transforms` option, run on the
 * properties before the registration is recorded, the resource's own then the stack's).
 *
 * Not played, and why: parents and components (the programs here register top-level custom
 * resources only); provider resources and default-provider changes (one plugin is the provider);
 * `deletedWith`, `replaceWith`, `replacementTrigger` (no program here uses them); --target-dependents,
 * --exclude-dependents, --continue-on-error, pending operations and the snapshot journal (no test
 * needs them yet); a transform's changed options, and parents' transforms; `deleteBeforeReplace: false` overriding a provider's `true` (the capture records
 * the flag, not whether it was set); a program's wait for its dependencies' real outputs (under
 * mocks every registration arrives at once with mock ids: see `resolvingIds`); the rig's default
 * of one step at a time (the engine's is unbounded) keeps `calls` in one order for the tests that
 * assert it. Preview never calls Create: the plugin does not support provider previews.
 */
export { type CaptureOptions, captureProgram, captureProgramFile, type LiveResource, programExports, type Registration } from "./capture";
export { ProviderCallError } from "./errors";
export { EngineError } from "./messages";
export { type EngineLog, FakeEngine } from "./fake-engine";
export { type CheckFailure, type DiffResult, type PluginOptions, ProviderPlugin } from "./plugin";
export { capturePods, POD_PROGRAM, PROJECT, PROJECT_DIR, SECRET_KEYS } from "./project";
export { EngineStack, ignoreChanges, type OperationResult, type RunOptions, type StateResource, type Step, type StepOp } from "./stack";
export { urnOf } from "./urn";
export { isSecret, reveal, SECRET_SIG, secret, SIG_KEY, toStruct, UNKNOWN } from "./wire";
