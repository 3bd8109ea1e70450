// The engine's own words for the failures the rig plays, as a user reads them, each from the
// engine source it is quoted from (pulumi/pulumi, pkg/resource/deploy and sdk/go/common/diag).

/** `urn.Quote()` (sdk/go/common/resource/urn/urn.go) on a POSIX shell. */
const quote = (urn: string) => `'${urn}'`;

/** step.go, `deleteProtectedError.Error()`: a delete (not a replace) of a protected resource. */
export function deleteProtected(urn: string): string {
  return (
    `resource "${urn}" cannot be deleted\n` +
    "because it is protected. To unprotect the resource, " +
    "either remove the `protect` flag from the resource in your Pulumi " +
    "program and run `pulumi up`, or use the command:\n" +
    `\`pulumi state unprotect ${quote(urn)}\``
  );
}

/** step_generator.go, continueStepsFromDiff: a replacement of a resource protected before and now. */
export function replaceProtected(urn: string): string {
  return (
    `unable to replace resource "${urn}"\n` +
    "as it is currently marked for protection. To unprotect the resource, " +
    "remove the `protect` flag from the resource in your Pulumi " +
    "program and run `pulumi up`"
  );
}

/** step_generator.go, continueStepsFromDiff: a replacement of a resource whose program still says `import`. */
export function replaceImported(keys: string[]): string {
  return "previously-imported resources that still specify an ID may not be replaced; please remove the `import` declaration from your program;\n" + keys.join("\n");
}

/** step.go, ImportStep.Apply and ReadStep.Apply: the provider's Read found nothing at the id. */
export function doesNotExist(id: string): string {
  return `resource '${id}' does not exist`;
}

/** step.go, ImportStep.Apply: a Read that answered without inputs. */
export function importUnsupported(pkg: string): string {
  return `provider does not support importing resources; please try updating the '${pkg}' plugin`;
}

/** diag/errors.go 2013 (GetResourceWillBeCreatedButWasNotSpecifiedInTargetList), the engine's typo kept. */
export function dependsOnUntargeted(urn: string, dep: string): string {
  return `Resource '${urn}' depends on '${dep}' which was was not specified in --target list.`;
}

/** diag/errors.go 2014 (GetResourceWillBeDestroyedButWasNotSpecifiedInTargetList). */
export function destroyedUntargeted(urn: string): string {
  return `Resource '${urn}' will be destroyed but was not specified in --target list.\nEither include resource in --target list or pass --target-dependents to proceed.`;
}

/** diag/errors.go 2011 and deployment_executor.go, checkTargets. */
export function targetNotFound(urn: string): string {
  return `Target '${urn}' could not be found in the stack. Did you forget to escape $ in your shell?`;
}

/** An engine failure (not a provider's): what the CLI prints as `error: ...`, the operation stopped. */
export class EngineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EngineError";
  }
}
