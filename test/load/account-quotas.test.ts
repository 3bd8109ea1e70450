// Two accounts in one program, through Pulumi's own plugin, each paced on its own quota: the
// stack's account (from stack config) and another named by its resources' `account`, on one
// emulator whose two keys have small, different quotas. Each account's up sends more than its
// key's window takes, so the quota binds on both. What is counted is what the emulator answered
// to each key in the up (its request log), never a time: each account's requests carry its own
// key, and none of either is a 429 (with the other account's client unpaced, its key met four).
// The emulator's clock runs 60 times faster (a minute window lasts one second), so the quotas
// bind within seconds; one plugin process, so no neighbour's spending goes unseen.
// The plugin loads dist/: `npm run build` before this file alone.
import * as pulumi from "@pulumi/pulumi";
import { fingerprint } from "../../src/emulator/core/request-log";
import { Pod } from "../../src/resources/pod";
import { captureProgram, EngineStack, PROJECT, SECRET_KEYS } from "../../tools/engine";
import { engineRigForFile } from "../../tools/engine/rig";

const TEAM = "cp_acct_quota_team_6c2d";
const SHARED = "cp_acct_quota_shared_b71e";
/** Requests a minute window takes from each key: different, so one account's budget cannot stand in for the other's. */
const QUOTA = { team: 6, shared: 10 };
const PODS = 5;
const rig = engineRigForFile(TEAM, {
  keys: [
    { key: TEAM, scopes: ["read", "write"], account: "team", quotas: { minute: QUOTA.team } },
    { key: SHARED, scopes: ["read", "write"], account: "shared", quotas: { minute: QUOTA.shared } },
  ],
  quotas: { minute: 60, hour: 100_000, day: 1_000_000 },
  timeScale: 60,
});

const program = () =>
  captureProgram(
    () => {
      const shared = { name: "shared", apiKey: pulumi.secret(SHARED), apiUrl: rig.emu.url };
      for (let i = 0; i < PODS; i++) {
        new Pod(`team${i}`, { image: "img/worker:1", cpu: { id: "cpu3c", vcpuCount: 2 } });
        new Pod(`shared${i}`, { image: "img/worker:1", cpu: { id: "cpu3c", vcpuCount: 2 }, account: shared });
      }
    },
    { project: PROJECT, stack: "dev", config: rig.config, secretKeys: SECRET_KEYS },
  );

/** What the emulator answered on `account`: its requests' keys, operations and 429s. */
function answered(account: string): { keys: (string | null)[]; ops: Record<string, number>; rejected: number; total: number } {
  const log = rig.emu.requestLog().filter((e) => e.account === account);
  const ops: Record<string, number> = {};
  for (const e of log.filter((x) => x.status !== 429)) ops[e.op] = (ops[e.op] ?? 0) + 1;
  return { keys: [...new Set(log.map((e) => e.key))], ops, rejected: log.filter((e) => e.status === 429).length, total: log.length };
}

test("one program on two accounts, each at its own quota's bound: each account's own key, no 429 on either", async () => {
  const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "dev" });
  const parallel = Number.POSITIVE_INFINITY;
  expect((await stack.up(await program(), { parallel })).error).toBeUndefined();
  expect(rig.emu.state("team").pods.filter((p) => p.status === "RUNNING")).toHaveLength(PODS);
  expect(rig.emu.state("shared").pods.filter((p) => p.status === "RUNNING")).toHaveLength(PODS);

  const team = answered("team");
  const shared = answered("shared");
  console.log(`two accounts, ${PODS} pods each, up: team ${JSON.stringify(team)}; shared ${JSON.stringify(shared)}`);
  expect(team.keys).toEqual([fingerprint(TEAM)]);
  expect(shared.keys).toEqual([fingerprint(SHARED)]);
  expect([team.ops.createPod, shared.ops.createPod]).toEqual([PODS, PODS]);
  // Each key sent more than a window of its quota takes: the bound was reached and paced through.
  expect(team.total).toBeGreaterThan(2 * QUOTA.team);
  expect(shared.total).toBeGreaterThan(QUOTA.shared);
  expect([team.rejected, shared.rejected]).toEqual([0, 0]);
}, 120_000);
