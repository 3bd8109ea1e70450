// The stack's cost ledger (a StackCost resource, src/resources/cost/ledger.ts) is in every stack
// with a Pod or a ServerlessEndpoint. test/engine/cost.test.ts covers it; tests about other
// things look past it with these.
import type { OperationResult, Registration, StateResource, Step } from "../../tools/engine";
import type { EngineStack } from "../../tools/engine";

const isLedger = (typeOrUrn: string) => /:StackCost(::stack-cost)?$/.test(typeOrUrn);

/** The steps of an operation other than the ledger's. */
export const resourceSteps = (result: OperationResult): Step[] => result.steps.filter((s) => !isLedger(s.urn));

/** The stack's resources other than the ledger, in state order. */
export const resourcesOf = (stack: EngineStack): StateResource[] => [...stack.resources.values()].filter((r) => !isLedger(r.type));

/** A program's registrations other than the ledger's. */
export const resourceRegs = (regs: Registration[]): Registration[] => regs.filter((r) => !isLedger(r.type));

/** Provider calls other than the ledger's (`Check stack-cost`, ...). */
export const resourceCalls = (calls: readonly string[]): string[] => calls.filter((c) => !c.endsWith(" stack-cost"));
