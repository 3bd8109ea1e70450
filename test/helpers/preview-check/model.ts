// What the preview check's walks share: a kind's model (its properties, values, live reads and
// rules), the world it walks in, a declaration, a step and a plan. The runner (runner.ts) drives
// walks of these; the kinds' files (pod.ts, ...) and the widened and promotion walks describe
// them; none of them imports the runner for a type, so no file of the check imports itself back.
import type { StepOp } from "../../../tools/engine";
import type * as pulumi from "@pulumi/pulumi";
import type fc from "fast-check";
import type { ComputePlatform } from "../../../src/client";
import type { Emulator } from "../../../src/emulator";

/** A declaration: the properties a program passes to the resource's constructor. */
export type Decl = Record<string, unknown>;

/**
 * One step of a chain. A change with `value: undefined` removes the property. `null` is a
 * step shrunk away: a chain keeps its length and shrinks by skipping steps.
 */
export type Step = { kind: "change"; property: string; value: unknown } | { kind: "outside"; field: string; value: unknown } | null;

/** What the plan (the code `diff` runs) says about a change. */
export interface Plan {
  replaces: string[];
  updates: string[];
}

/** Everything a kind's model may read: the emulator, a client on it, and the fixtures made for it. */
export interface World {
  emu: Emulator;
  client: ComputePlatform;
  /** Objects made through the client before the walk (volumes, credentials, templates), by name. */
  fixtures: Record<string, string[]>;
}

/** An outside change of one updatable field: how to draw it, make it, and what preview must show then. */
export interface OutsideChange {
  /** A value for the field, drawn independently; `apply` may adapt it to the live object. */
  value: fc.Arbitrary<unknown>;
  /** Make the change through the client, as a console would; returns false when the draw changes nothing (skipped). */
  apply(world: World, id: string, value: unknown, live: any): Promise<boolean>;
  /**
   * What the next preview shows for a declaration `decl`: `update` (exactly this field: `shows`
   * names it), `replace` (exactly this field, which only a new object can put back), `same`
   * (the field is not declared: the platform's choice is not compared), or `refused` (the
   * change cannot be put back: diff fails naming it).
   */
  expect(decl: Decl, value: unknown): "update" | "replace" | "same" | "refused";
  /** The name the plan gives the field when it differs from the field's. */
  shows?: string;
}

export interface KindModel {
  /** The resource class name (`Pod`, ...). */
  name: string;
  /** The kind's properties, read from its code (its zod schema): the generator must cover each. */
  properties: readonly string[];
  /** Per property: new values for a change; `undefined` among them removes the property. */
  values: (world: World) => Record<string, fc.Arbitrary<unknown>>;
  /** A valid first declaration. */
  initial: (world: World) => fc.Arbitrary<Decl>;
  /** Cross-field rules a one-property draw may break, put right (documented per kind). */
  repair?: (next: Decl, old: Decl, world: World) => Decl;
  /** `new Kind(logical, decl, opts)`. */
  construct: (logical: string, decl: Decl, opts?: pulumi.CustomResourceOptions) => void;
  /** The live object on the platform, from the emulator's state; undefined when it is gone. */
  live: (world: World, id: string) => any;
  /**
   * Assert the live object matches `decl` (after up). `before` is the live object before up
   * (for fields the platform keeps), `old` the declaration before (tells removed fields).
   */
  expectLive: (decl: Decl, live: any, before: any, world: World, old: Decl | undefined) => void;
  /** Outside changes, by field: every field the platform lets a console change. */
  outside: (world: World) => Record<string, OutsideChange>;
  /** The plan `diff` runs, on (old outputs, checked new inputs). */
  plan: (olds: any, news: any) => Plan;
  /** Properties whose change up records in state without a write (read at creation only, or only by the provider). */
  recordedOnly?: readonly string[];
  /**
   * What a change from `old` to `next` must preview as, when the kind's rules say it outright
   * (e.g. a Pod's gpu.id list that still holds the pod's GPU type: an update); undefined: not asserted.
   */
  expectOp?: (next: Decl, old: Decl, liveBefore: any) => StepOp | undefined;
  /**
   * Make by hand, through the client as a console would, the object `checked` (the provider's
   * checked inputs of a first declaration) describes; its id, or undefined when the kind cannot
   * (a walk then creates). A walk drawn to adopt declares the first declaration with that id in
   * `adopt` (src/resources/lifecycle/adopt.ts): preview and up must show a create that sends none.
   */
  makeByHand?: (world: World, checked: Record<string, any>) => Promise<string | undefined>;
  /** Whether the kind's name cannot change on an existing object (a change replaces it): an adopting walk then declares the name it made the object with. */
  nameFixed?: boolean;
  /**
   * Before an up that updates the object (`olds` its state's outputs, `news` the provider's
   * checked inputs): a look at the platform, and the check, run after the up with the state's
   * outputs then, that the platform
   * made of the change what the plan said (an endpoint: the fields the plan says roll its workers
   * are those the up's releases rolled, issue 46).
   */
  watchUp?: (world: World, id: string, olds: Record<string, any>, news: Record<string, any>) => Promise<(after: Record<string, any>) => Promise<void>>;
  /** Whether the live object held data that nothing else keeps, so its end destroys it (step-lines.ts). @default never */
  holdsData?: (live: any) => boolean;
  /** Whether the object's container restarted between two live reads; undefined when they cannot tell. */
  restarted?: (before: any, after: any) => boolean | undefined;
  /** Before an up: a look at the object's releases, and after it whether the up made one that rolls its workers. */
  rolled?: (world: World, id: string) => Promise<() => Promise<boolean>>;
  /**
   * Before an up that updates the object (`olds` its state's outputs, `news` the provider's
   * checked inputs): bind to it what runs it (a serverless template: an endpoint with a worker,
   * made through the client as another stack would), or undefined when nothing can be bound.
   * After the up, `rolled` gives the fields of the releases the up made on what is bound that
   * roll its workers, once they rolled; `unbind` (called whatever happened) takes it away again.
   */
  bindUser?: (world: World, id: string, olds: Record<string, any>, news: Record<string, any>) => Promise<BoundUser | undefined>;
  /** Chains walked before the drawn ones, whatever the seed: what the check must hold that a short draw may miss. */
  examples?: (world: World) => { first: Decl; steps: Step[] }[];
}

/** What a walk bound to the walked object for one up (`KindModel.bindUser`). */
export interface BoundUser {
  /** The rolling fields (the platform's release names) of the releases the up made on it, once its workers rolled. */
  rolled(): Promise<string[]>;
  unbind(): Promise<void>;
}
