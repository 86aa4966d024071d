/**
 * `npm run netlab -- --nodes 7 --report FILE`: builds the lab (lab.ts), runs the scenarios with a
 * load on several nodes, audits every acknowledged operation, writes the report (JSON, Markdown,
 * SVG) and exits non-zero when a scenario failed. Exits 0 with a message when the machine cannot
 * host the lab (not root, no `ip netns`).
 */

import { availableParallelism, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { converge } from './chain-watch';
import { hostileNode } from './hostile';
import { type Lab, labNodes, runningNodes, startNetwork, withLab } from './lab';
import { Load, type LoadWallet, sleep } from './load';
import { audit, inclusionDelays, percentile, propagation, TipSampler } from './metrics';
import { labUnavailable, raisePriority } from './netns';
import type { RelayMode } from './relay-control';
import { type LabReport, writeReport } from './report';
import type { LabOperation } from './rpc';
import {
  LATE_JOINS,
  lateJoiner,
  partition,
  producerKill,
  restarts,
  type ScenarioContext,
  type ScenarioResult,
  steadyState,
} from './scenarios';
import { snapshotJoiner } from './snapshot-joiner';
import { SystemSampler, summarize } from './system-stats';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '7' },
    report: { type: 'string', default: 'netlab-report.json' },
    'block-time': { type: 'string', default: '500' },
    'steady-s': { type: 'string', default: '30' },
    'partition-s': { type: 'string', default: '60' },
    keep: { type: 'boolean', default: false },
    relay: { type: 'string', default: 'process' },
    'prebuild-blocks': { type: 'string', default: '5000' },
    joins: { type: 'string', default: String(LATE_JOINS) },
    'latency-ms': { type: 'string', default: '50' },
    'jitter-ms': { type: 'string', default: '10' },
    /** `all`: every node given every address; `one`: node 1's only (found by peer exchange). */
    bootstrap: { type: 'string', default: 'all' },
    /** The network's nodes' --log-level (default info; `p2p=debug,info` to investigate). */
    'log-level': { type: 'string' },
    /** Scheduling priority of the lab and everything it starts (see raisePriority). 0 leaves it. */
    nice: { type: 'string', default: '-10' },
    /** Prefunded wallets; all but one carry the load, wallet i through node i (mod nodes). */
    accounts: { type: 'string', default: '8' },
    /** Pause of each load wallet between two operations (the load's rate, with the wallets). */
    'pause-ms': { type: 'string', default: '700' },
    /** Nodes stopped and started again at once in the restart scenario. */
    restarts: { type: 'string', default: '5' },
    /** Seconds the idle network is measured before the load starts (what idle nodes cost). */
    'idle-s': { type: 'string', default: '15' },
    /**
     * Comma-separated subset of steady,kill,restart,partition,late,snap,hostile: all but restart
     * by default (the 7-node lab of .ci/netlab; restart is the 30-node lab's).
     */
    scenarios: { type: 'string', default: 'steady,kill,partition,late,snap,hostile' },
  },
});

const only = new Set(values.scenarios!.split(','));
const t0 = Date.now();
const log = (line: string) => {
  process.stdout.write(`[netlab +${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}\n`);
};

/**
 * Waits until every node is ready and sees all the others (given every address), or at least
 * min(6, nodes - 1) peers (given one bootstrap address: what discovery must reach).
 */
async function meshUp(lab: Lab): Promise<number> {
  const others = lab.nodes.length - 1;
  const want = lab.config.bootstrap === 'one' ? Math.min(6, others) : others;
  const started = Date.now();
  const deadline = started + 60_000;
  while (Date.now() < deadline) {
    const status = await Promise.all(
      lab.nodes.map((n) => n.call<{ ready: boolean; netstats: { active: number } }>('nodeStatus')),
    );
    if (status.every((s) => s.ready && s.netstats.active >= want)) {
      const seconds = Math.round((Date.now() - started) / 100) / 10;
      log(`every node has >= ${want} peers after ${seconds} s`);
      return seconds;
    }
    await sleep(500);
  }
  throw new Error(`the nodes did not all reach ${want} peers within 60 s`);
}

/**
 * What the connected network costs the host before any load: CPU of each node (timers, hellos,
 * gossipsub heartbeats, empty blocks) and of the whole host, and the nodes' memory.
 */
async function idleCost(lab: Lab, seconds: number): Promise<Record<string, unknown>> {
  const idle = new SystemSampler(() => lab.nodes, lab.relay);
  idle.start();
  await sleep(seconds * 1000);
  idle.stop();
  // The first sample has no interval before it.
  const summary = summarize(idle.samples.slice(1));
  const perNode = Object.values(summary.node_cpu_percent_mean as Record<string, number>);
  const meanNode = perNode.reduce((a, b) => a + b, 0) / Math.max(1, perNode.length);
  const figures = {
    seconds,
    node_cpu_ms_per_s_mean: Math.round(meanNode * 10),
    node_cpu_ms_per_s_max: Math.round(Math.max(0, ...perNode) * 10),
    nodes_cpu_share_of_host_percent: Math.round(
      (summary.nodes_cpu_percent_total_mean as number) / availableParallelism(),
    ),
    host_cpu_percent_mean: summary.host_cpu_percent_mean,
    load1_mean: summary.load1_mean,
    nodes_rss_mb: summary.nodes_rss_mb_max,
  };
  log(
    `idle network: ${figures.node_cpu_ms_per_s_mean} ms of CPU per second per node (max ${figures.node_cpu_ms_per_s_max}), the ${lab.nodes.length} nodes ${figures.nodes_cpu_share_of_host_percent}% of the host; host busy ${figures.host_cpu_percent_mean}%, load ${figures.load1_mean}; nodes' memory ${figures.nodes_rss_mb} MB`,
  );
  return figures;
}

async function mined(lab: Lab, ophash: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const found = await lab.nodes[0]!.call<LabOperation[]>('findOperation', { ophash });
    if (found.some((f) => f.block > 0)) return;
    await sleep(200);
  }
  throw new Error(`operation ${ophash} not mined within 30 s`);
}

/** Load wallets (every prefunded account but the last, kept for double spends), a token for all. */
async function setupLoad(lab: Lab): Promise<Load> {
  const accounts = lab.manifest.accounts.slice(0, -1);
  const wallets: LoadWallet[] = [];
  for (const [i, account] of accounts.entries()) {
    const node = lab.nodes[i % lab.nodes.length]!;
    const info = await node.call<{ account: number }>('getWalletInfo', { wallet: account.address });
    wallets.push({ address: account.address, account: info.account, node });
  }
  const issuer = wallets[0]!;
  const passphrase = lab.manifest.passphrase;
  const created = await issuer.node.call<LabOperation & { token: string }>('createToken', {
    wallet: issuer.address,
    passphrase,
    function: false,
    name: 'Lab',
    symbol: 'LAB',
    summary: 'netlab load',
    totalAmount: '1000000',
    decimal: 2,
  });
  await mined(lab, created.ophash);
  let last = created.ophash;
  for (const wallet of wallets.slice(1)) {
    const op = await issuer.node.call<LabOperation>('sendToken', {
      sender: issuer.address,
      passphrase,
      receiver: wallet.address,
      amount: '10000',
      token: created.token,
    });
    last = op.ophash;
  }
  await mined(lab, last);
  return new Load({
    wallets,
    passphrase,
    token: created.token,
    pauseMs: Number(values['pause-ms']),
  });
}

/** Waits until no node has pending operations and all agree on the tip. */
async function settle(lab: Lab): Promise<void> {
  const nodes = runningNodes(lab);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const pending = await Promise.all(nodes.map((n) => n.call<number>('getPendingCount')));
    if (pending.every((p) => p === 0) && (await converge(nodes, 2000))) return;
    await sleep(500);
  }
  log('the network did not settle within 60 s (operations still pending or tips differ)');
}

/** Operations per second the load had acknowledged during the steady state. */
function steadyRate(load: Load): number {
  const steady = load.acknowledged.filter((op) => op.scenario === 'steady-state');
  if (steady.length < 2) return 0;
  const seconds = (steady[steady.length - 1]!.at - steady[0]!.at) / 1000;
  return Math.round(steady.length / Math.max(1, seconds));
}

async function runLab(lab: Lab): Promise<LabReport> {
  log(`lab in ${lab.dir}: starting ${lab.nodes.length} nodes`);
  await startNetwork(lab);
  const peersUpS = await meshUp(lab);
  const idle = await idleCost(lab, Number(values['idle-s']));
  log('all nodes connected; setting up the load (token, wallets)');
  const load = await setupLoad(lab);
  const sampler = new TipSampler(() => labNodes(lab));
  const system = new SystemSampler(() => labNodes(lab), lab.relay);
  const startedAt = Date.now();
  sampler.start();
  system.start();
  load.start();
  const ctx: ScenarioContext = { lab, load, system, log };
  const results: ScenarioResult[] = [];
  const slowNode = lab.nodes[lab.nodes.length - 1]!;
  const steadyMs = Number(values['steady-s']) * 1000;
  if (only.has('steady')) results.push(...(await steadyState(ctx, steadyMs, slowNode)));
  if (only.has('kill')) results.push(await producerKill(ctx));
  if (only.has('restart')) results.push(await restarts(ctx, Number(values.restarts), slowNode));
  const doubleSpender = lab.manifest.accounts[lab.manifest.accounts.length - 1]!;
  if (only.has('partition')) {
    results.push(await partition(ctx, Number(values['partition-s']) * 1000, doubleSpender));
  }
  await load.stop();
  if (only.has('late')) results.push(await lateJoiner(ctx));
  if (only.has('snap')) results.push(await snapshotJoiner(ctx));
  if (only.has('hostile')) results.push(await hostileNode(ctx, lab.hostileIndex));
  log('settling: waiting for every pending operation to be mined');
  await settle(lab);
  sampler.stop();
  system.stop();
  const result = await audit(lab.nodes[1]!, load.acknowledged);
  log(
    `audit: ${result.acknowledged} acknowledged, ${result.mined} mined, ${result.conflicting} conflicting, ${result.lost.length} lost`,
  );
  // Each steady-state operation in a block within 3 block times (p99), as the producer's peers
  // saw it: timed on the audit's node.
  const delays = await inclusionDelays(
    lab.nodes[1]!,
    load.acknowledged,
    result.blockOf,
    'steady-state',
  );
  const inclusionP99 = percentile(delays, 99);
  const inclusionLimit = 3 * lab.config.blockTimeMs;
  const { blockOf: _blockOf, ...counts } = result;
  const auditResult: ScenarioResult = {
    name: 'no_lost_operations',
    pass:
      result.lost.length === 0 &&
      (!only.has('steady') || (delays.length > 0 && inclusionP99 <= inclusionLimit)),
    figures: {
      ...counts,
      lost: result.lost.length,
      steady_inclusion_ms_p50: percentile(delays, 50),
      steady_inclusion_ms_p99: inclusionP99,
      steady_inclusion_limit_ms: inclusionLimit,
      steady_operations_per_s: steadyRate(load),
    },
    notes: [
      `${result.lost.length} of ${result.acknowledged} acknowledged operations lost; steady-state operations in a block p50 ${percentile(delays, 50)} ms, p99 ${inclusionP99} ms after their acknowledgement (target <= ${inclusionLimit} ms, 3 block times)`,
    ],
  };
  results.push(auditResult);
  const samples = await propagation(lab.nodes, startedAt, Date.now());
  const steady = results.find((r) => r.name === 'steady_state') ?? {
    figures: {} as Record<string, unknown>,
  };
  const by = (name: string) => results.find((r) => r.name === name);
  const report: LabReport = {
    nodes: lab.nodes.length,
    bootstrap: lab.config.bootstrap,
    peers_up_s: peersUpS,
    idle,
    system: summarize(system.samples.slice(1)),
    latency_ms: { one_way: lab.config.latencyMs, jitter: lab.config.jitterMs },
    block_time_ms: lab.config.blockTimeMs,
    duration_s: Math.round((Date.now() - startedAt) / 1000),
    acknowledged: result.acknowledged,
    mined: result.mined,
    lost: result.lost.length,
    conflicting: result.conflicting,
    lost_operations: result.lost,
    partition_healed: by('partition')?.pass ?? false,
    producer_kill_survived: by('producer_kill')?.pass ?? false,
    late_joiner_synced: by('late_joiner')?.pass ?? false,
    sync_blocks_per_s: (by('late_joiner')?.figures.sync_blocks_per_s as number | null) ?? null,
    local_import_blocks_per_s:
      (by('late_joiner')?.figures.local_import_blocks_per_s as number | null) ?? null,
    propagation_p50_ms: steady.figures.propagation_p50_ms as number,
    propagation_p99_ms: steady.figures.propagation_p99_ms as number,
    scenarios: Object.fromEntries(
      results.map((r) => [r.name, { pass: r.pass, figures: r.figures, notes: r.notes }]),
    ),
    pass: results.every((r) => r.pass),
  };
  log(
    `whole-run propagation: p50 ${percentile(
      samples.map((s) => s.ms),
      50,
    )} ms, p99 ${percentile(
      samples.map((s) => s.ms),
      99,
    )} ms`,
  );
  const file = resolve(values.report!);
  const written = await writeReport(file, report, samples, sampler.samples, startedAt);
  log(`report: ${file}, ${written.markdown}, ${written.svg}`);
  return report;
}

const unavailable = await labUnavailable();
if (unavailable) {
  process.stdout.write(`netlab skipped: ${unavailable}\n`);
  process.exit(0);
}
if (Number(values.nice) !== 0) {
  await raisePriority(Number(values.nice));
  log(
    `running at nice ${values.nice} (the nodes and the relay inherit it); load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
}
const report = await withLab(
  {
    nodes: Number(values.nodes),
    joins: Number(values.joins),
    producers: 3,
    accounts: Number(values.accounts),
    blockTimeMs: Number(values['block-time']),
    latencyMs: Number(values['latency-ms']),
    jitterMs: Number(values['jitter-ms']),
    relayMode: values.relay as RelayMode,
    bootstrap: values.bootstrap === 'one' ? 'one' : 'all',
    prebuildBlocks: Number(values['prebuild-blocks']),
    ...(values['log-level'] !== undefined ? { logLevel: values['log-level'] } : {}),
    log,
  },
  values.keep!,
  runLab,
);
for (const [name, s] of Object.entries(report.scenarios)) {
  log(`${s.pass ? 'pass' : 'FAIL'} ${name}: ${s.notes.join('; ')}`);
}
log(`lab ${report.pass ? 'passed' : 'FAILED'} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
process.exit(report.pass ? 0 : 1);
