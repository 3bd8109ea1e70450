// What the console reads: each account's records as its API answers them and its meter, and
// the emulator's request log and faults in force. The server hands it over; the console changes nothing
// directly (its controls go through the control plane's routes, ../control/routes.ts).

import type { FaultsJson } from "../core/faults";
import type { Segment } from "../core/meter";
import type { NetworkVolume } from "../network-volumes/store";
import type { PodView } from "../pods/store";
import type { Registry } from "../registries/store";
import type { RequestLogEntry } from "../core/request-log";
import type { EndpointHealth, JobAnswer } from "../serverless/jobs/job";
import type { ReleasesView } from "../serverless/rest/endpoints";
import type { EndpointView } from "../serverless/service";
import type { Template } from "../templates/store";

/** What one account holds, as its keys' requests see it. */
export interface AccountSource {
  /** The account's name (a key's `account`). */
  readonly name: string;
  /** Every pod, TERMINATED ones included, as GET /v2/pods/{id} answers it. */
  pods(): PodView[];
  endpoints(): readonly EndpointView[];
  /** An endpoint's queue and workers by state (its `health`) and its most recent jobs, newest first. */
  endpointJobs(id: string): { health: EndpointHealth; recent: { answer: JobAnswer; submittedAt: number }[] };
  /** An endpoint's version, releases and rollout, as `listEndpointReleases` answers them. */
  endpointReleases(id: string): ReleasesView;
  volumes(): NetworkVolume[];
  templates(): Template[];
  /** Ids and names only: the emulator keeps no credential. */
  registries(): Registry[];
  /** Every metered segment and charge, as billing reads them. */
  segments(): Segment[];
  /** The emulator's clock (epoch ms), which billing runs on. */
  now(): number;
}

export interface ConsoleSource {
  /** Every account, the first key's first: the console shows each one's objects under its name. */
  accounts(): readonly AccountSource[];
  requestLog(): RequestLogEntry[];
  faults(): FaultsJson;
}
