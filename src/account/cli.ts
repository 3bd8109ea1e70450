#!/usr/bin/env node
// `computeplatform-account`: what an account runs, who owns it and what it costs (`sweep`), and
// a Pulumi program that adopts it (`program`). The key comes from the environment only, so it
// never lands in a shell's history, and nothing printed carries it or any secret.

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { ComputePlatform } from "../client";
import { type Kind, KINDS } from "./kinds";
import { readStates } from "./owners";
import { programReport, writeProgram } from "./program";
import { readAccount, sweepOf } from "./sweep";
import { sweepTable } from "./table";

const HELP = `Usage: computeplatform-account [sweep] [options]
       computeplatform-account program [--out <file>] [--kinds <a,b>] [--name <text>] [--ids <a,b>]

Lists every object of the account (pods, serverless endpoints, network volumes, templates,
registry credentials) with its owner, its state and what it costs now, largest first: one
list per kind, paced like every client call.

program writes a TypeScript Pulumi program that declares each object as it is, with
adopt (references between them as references, secrets as stack config), and prints what it
left out and the config to set; its first \`pulumi up\` changes nothing.

Options
  --out <file>           program: write the program there (else it is printed)
  --name <text>          program: only objects whose name contains the text
  --ids <a,b>            program: only these ids
  --json                 print JSON instead of the table
  --state <file>         a stack's exported state (\`pulumi stack export > dev.json\`): names the
                         stack that owns each object it holds; repeatable
  --kinds <a,b>          only these kinds (${KINDS.join(", ")})
  --api-url <url>        the platform's address        [COMPUTEPLATFORM_API_URL]
  -h, --help             this help

The API key is read from COMPUTEPLATFORM_API_KEY, never from an option.`;

/** The kinds asked for, each one checked. */
export function kindsOf(text: string | undefined): Kind[] {
  if (text === undefined) return [...KINDS];
  const asked = text.split(",").map((k) => k.trim()).filter((k) => k !== "");
  const bad = asked.filter((k) => !(KINDS as readonly string[]).includes(k));
  if (bad.length > 0) throw new Error(`--kinds: ${bad.join(", ")} is not a kind; the kinds are ${KINDS.join(", ")}`);
  return asked as Kind[];
}

/** Run the command with `argv` (without node and the script); the text to print. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      json: { type: "boolean", default: false },
      state: { type: "string", multiple: true, default: [] },
      kinds: { type: "string" },
      out: { type: "string" },
      name: { type: "string" },
      ids: { type: "string" },
      "api-url": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return HELP;
  const command = positionals[0] ?? "sweep";
  if (command !== "sweep" && command !== "program") throw new Error(`unknown command ${JSON.stringify(command)}; see --help`);
  const kinds = kindsOf(values.kinds);
  const states = readStates(values.state ?? []);
  const apiUrl = values["api-url"] ?? env.COMPUTEPLATFORM_API_URL;
  if (!env.COMPUTEPLATFORM_API_KEY) throw new Error("No API key: set COMPUTEPLATFORM_API_KEY");
  if (!apiUrl) throw new Error("No API address: set COMPUTEPLATFORM_API_URL or give --api-url");
  const client = new ComputePlatform({ apiKey: env.COMPUTEPLATFORM_API_KEY, apiUrl, env });
  try {
    if (command === "program") {
      const ids = values.ids?.split(",").map((i) => i.trim()).filter((i) => i !== "");
      const written = writeProgram(await readAccount(client, KINDS), { kinds, name: values.name, ids });
      if (values.out === undefined) return written.text;
      mkdirSync(dirname(values.out), { recursive: true });
      writeFileSync(values.out, written.text);
      return `wrote ${values.out}\n${programReport(written)}`;
    }
    const sweep = sweepOf(await readAccount(client, kinds), states);
    return values.json ? JSON.stringify(sweep, null, 2) : sweepTable(sweep);
  } finally {
    await client.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (out) => console.log(out),
    (err: unknown) => {
      console.error(`computeplatform-account: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    },
  );
}
