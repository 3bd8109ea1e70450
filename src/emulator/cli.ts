#!/usr/bin/env node
// `computeplatform-emulator`: starts the local Compute Platform and prints how to use it.

import { parseArgs } from "node:util";
import { DEFAULT_HOST, DEFAULT_PORT, DEFAULT_TIMINGS, generateApiKey, startEmulator, type ApiKey, type Faults, type Scope } from "./index";
import { DEFAULT_QUOTAS } from "./core/rate-limit";
import { linearPattern } from "./core/faults";

const HELP = `Usage: computeplatform-emulator [options]

A local Compute Platform: REST /v2 (pods, catalog, network volumes), GraphQL /graphql
(serverless endpoints) and hosted models (/v2/{id}/runsync).
A console at /console on the same port (sign in with a key); faults and outside events
also as HTTP calls under /emulator (see docs/emulator.md).

Server
  --port <n>              TCP port (0 = any free port)               [${DEFAULT_PORT}]
  --host <addr>           interface to bind                          [${DEFAULT_HOST}]
  --allowed-host <name>   also serve requests whose Host is this name (besides loopback names
                          and the bound address; others are a 421); repeatable
  --key <key[:scopes]>    accept this API key; scopes comma-separated from read,write
                          (e.g. --key cp_ro:read); repeatable        [one generated read,write key]
  --account <name>=<key[:scopes]>
                          accept this key as one of account <name>'s: each account sees,
                          lists and bills only its own objects (another's id is a 404);
                          repeatable, keys of one name share it      [every key in one account]
  --state-file <path>     keep pods, volumes and endpoints across restarts (atomic writes)
  --graphql-save-resets   a GraphQL saveEndpoint of an existing endpoint puts the fields it
                          leaves out back to their defaults (as the live platform is reported
                          to), instead of keeping them; REST updates stay sparse

Rate limits (requests per key and window)
  --quota-minute <n>                                                 [${DEFAULT_QUOTAS.minute}]
  --quota-hour <n>                                                   [${DEFAULT_QUOTAS.hour}]
  --quota-day <n>                                                    [${DEFAULT_QUOTAS.day}]

Timing (emulated milliseconds)
  --provisioning-ms <n>   how long a pod stays PROVISIONING         [${DEFAULT_TIMINGS.provisioningMs}]
  --starting-ms <n>       how long a container stays STARTING       [${DEFAULT_TIMINGS.startingMs}]
  --drain-ms <n>          how long a drained worker stays EXITED    [${DEFAULT_TIMINGS.drainMs}]
  --restart-delay-ms <n>  how long after an update a RUNNING pod's restart begins
                                                                    [${DEFAULT_TIMINGS.restartDelayMs}]
  --time-scale <x>        run x times faster: timers and rate-limit windows shrink together
                          (10: an emulated minute lasts 6 s)        [1]

Faults (off by default)
  --seed <n>              seed of the fault sequence                 [1]
  --rate-429 <p>          share of requests answered 429 (0..1)
  --rate-5xx <p>          share of requests answered 500/502/503 (0..1)
  --drop-rate <p>         share of requests processed, then the connection cut (0..1)
  --slow-ms <n>           delay every response by n real ms
  --error-image <regex>   pods with a matching image end in ERROR, endpoint workers
                          UNHEALTHY; repeatable
  --no-capacity <gpu[@dc]> no capacity for a GPU type (in one data center); repeatable
  --model-job-ms <n>      every hosted-model job takes n emulated ms (runsync answers
                          IN_PROGRESS when its wait is shorter; status and
                          status-sync follow the job to the end)     [0]
  --fail-prompt <regex>   hosted-model jobs with a matching prompt answer FAILED; repeatable

  -h, --help              show this help
`;

function fail(message: string): never {
  process.stderr.write(`computeplatform-emulator: ${message}\nTry --help.\n`);
  process.exit(2);
}

function num(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) fail(`--${name} needs a number, got '${value}'`);
  return n;
}

function parseKey(spec: string): ApiKey {
  const at = spec.lastIndexOf(":");
  if (at <= 0) return { key: spec, scopes: ["read", "write"] };
  const scopes = spec.slice(at + 1).split(",").filter((s) => s.length > 0);
  for (const s of scopes) if (s !== "read" && s !== "write") fail(`unknown scope '${s}' in --key (use read, write)`);
  return { key: spec.slice(0, at), scopes: scopes as Scope[] };
}

/** `--account team=cp_team_key:read`: a key of account `team`. */
function parseAccountKey(spec: string): ApiKey {
  const at = spec.indexOf("=");
  if (at <= 0 || at === spec.length - 1) fail(`--account needs <name>=<key[:scopes]>, got '${spec}'`);
  return { ...parseKey(spec.slice(at + 1)), account: spec.slice(0, at) };
}

function toPattern(flag: string): (p: string) => string {
  return (p) => {
    try {
      new RegExp(p);
    } catch {
      return fail(`--${flag} '${p}' is not a valid regular expression`);
    }
    try {
      linearPattern(p);
    } catch (e) {
      return fail(`--${flag} '${p}' ${(e as Error).message}`);
    }
    return p;
  };
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      options: {
        port: { type: "string" },
        host: { type: "string" },
        key: { type: "string", multiple: true },
        account: { type: "string", multiple: true },
        "state-file": { type: "string" },
        "allowed-host": { type: "string", multiple: true },
        "graphql-save-resets": { type: "boolean" },
        "quota-minute": { type: "string" },
        "quota-hour": { type: "string" },
        "quota-day": { type: "string" },
        "provisioning-ms": { type: "string" },
        "starting-ms": { type: "string" },
        "restart-delay-ms": { type: "string" },
        "drain-ms": { type: "string" },
        "time-scale": { type: "string" },
        seed: { type: "string" },
        "rate-429": { type: "string" },
        "rate-5xx": { type: "string" },
        "drop-rate": { type: "string" },
        "slow-ms": { type: "string" },
        "error-image": { type: "string", multiple: true },
        "no-capacity": { type: "string", multiple: true },
        "model-job-ms": { type: "string" },
        "fail-prompt": { type: "string", multiple: true },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (err) {
    fail((err as Error).message);
  }
  const v = parsed.values as Record<string, string | string[] | boolean | undefined>;
  if (v.help) {
    process.stdout.write(HELP);
    return;
  }
  const s = (name: string) => v[name] as string | undefined;
  const list = (name: string) => (v[name] as string[] | undefined) ?? [];
  const keys = [...list("key").map(parseKey), ...list("account").map(parseAccountKey)];
  if (keys.length === 0) keys.push({ key: generateApiKey(), scopes: ["read", "write"] });
  const faults: Faults = {
    seed: num("seed", s("seed")),
    rate429: num("rate-429", s("rate-429")),
    rate5xx: num("rate-5xx", s("rate-5xx")),
    dropAfterProcessRate: num("drop-rate", s("drop-rate")),
    slowMs: num("slow-ms", s("slow-ms")),
    errorImages: list("error-image").map(toPattern("error-image")),
    modelJobMs: num("model-job-ms", s("model-job-ms")),
    failingPrompts: list("fail-prompt").map(toPattern("fail-prompt")),
    noCapacity: list("no-capacity").map((spec) => {
      const [gpuId, dataCenterId] = spec.split("@");
      return dataCenterId ? { gpuId, dataCenterId } : { gpuId };
    }),
  };
  const quotas = {
    minute: num("quota-minute", s("quota-minute")),
    hour: num("quota-hour", s("quota-hour")),
    day: num("quota-day", s("quota-day")),
  };
  const timings = {
    provisioningMs: num("provisioning-ms", s("provisioning-ms")),
    startingMs: num("starting-ms", s("starting-ms")),
    restartDelayMs: num("restart-delay-ms", s("restart-delay-ms")),
    drainMs: num("drain-ms", s("drain-ms")),
  };
  const defined = <T extends object>(o: T) =>
    Object.fromEntries(Object.entries(o).filter(([, x]) => x !== undefined)) as Partial<T>;
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  try {
    emu = await startEmulator({
      port: num("port", s("port")) ?? DEFAULT_PORT,
      host: s("host") ?? DEFAULT_HOST,
      allowedHosts: list("allowed-host"),
      keys,
      quotas: defined(quotas) as Partial<typeof DEFAULT_QUOTAS>,
      timings: defined(timings) as Partial<typeof DEFAULT_TIMINGS>,
      timeScale: num("time-scale", s("time-scale")),
      faults: defined(faults) as Faults,
      stateFile: s("state-file"),
      graphqlSaveResets: v["graphql-save-resets"] === true,
    });
  } catch (err) {
    fail((err as Error).message);
  }
  // The one place a key is printed: the user asked for a ready-to-use one.
  process.stdout.write(
    [
      `Compute Platform emulator listening on ${emu.url}`,
      `  REST ${emu.url}/v2   GraphQL ${emu.url}/graphql   runsync ${emu.url}/v2/{id}/runsync`,
      `  Console ${emu.url}/console (sign in with an API key)   faults and outside events ${emu.url}/emulator/...`,
      `API key: ${emu.apiKey}`,
      "",
      "Point the client and the Pulumi provider at it (REST, GraphQL and hosted models alike):",
      `  export COMPUTEPLATFORM_API_URL=${emu.url}`,
      `  export COMPUTEPLATFORM_API_KEY=${emu.apiKey}`,
      `  export COMPUTEPLATFORM_SERVERLESS_URL=${emu.url}`,
      "or, in a Pulumi stack:",
      `  pulumi config set computeplatform:apiUrl ${emu.url}`,
      `  pulumi config set computeplatform:serverlessUrl ${emu.url}`,
      `  pulumi config set --secret computeplatform:apiKey ${emu.apiKey}`,
      "",
    ].join("\n"),
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: closing\n`);
    emu.close().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`computeplatform-emulator: close failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

main().catch((err) => fail((err as Error).message));
