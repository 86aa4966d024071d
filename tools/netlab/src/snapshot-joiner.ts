/**
 * Scenario 4b: a fresh node joins by snapshot behind the 50 ms links (`--sync snap`, its snap
 * distance below the chain's height), with one lying peer among those it knows: the snapshot liar
 * (snapshot-liar-main.ts, in a namespace of its own behind the relay), a node that follows the
 * chain but serves a snapshot of the same block as the others with a forged chunk, its manifest
 * made to match. The joiner must ban the liar (FORGED_SNAPSHOT), join from the honest nodes, reach
 * the network's tip on the same chain, and then fill the history below its snapshot.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { converge } from './chain-watch';
import type { Lab } from './lab';
import { P2P_PORT } from './lab-node';
import { sleep } from './load';
import { logRecords } from './metrics';
import { nodeAddress, relayAddress, spawnInNamespace } from './netns';
import type { ScenarioContext, ScenarioResult } from './scenarios';
import type { SnapshotLiarPlan } from './snapshot-liar-main';

/** Longest a join to the tip, and then the history below the snapshot, may take. */
const JOIN_MS = 60_000;
const HISTORY_MS = 60_000;

interface BlockSyncing {
  historyStart: number;
  snapshot: { height: number; chunks: number; chunksDone: number } | null;
}

/** Starts the liar in its namespace; resolves once it listens (or fails with its output). */
async function startLiar(lab: Lab): Promise<ChildProcess> {
  const main = fileURLToPath(new URL('./snapshot-liar-main.ts', import.meta.url));
  const plan: SnapshotLiarPlan = {
    ip: nodeAddress(lab.liarIndex),
    port: P2P_PORT,
    peers: lab.nodes.map((n) => `${relayAddress(n.index)}:${P2P_PORT}`),
    genesisFile: lab.manifest.genesis,
    dir: lab.liarDir,
  };
  const child = spawnInNamespace(lab.liarIndex, main, plan, ['ignore', 'pipe', 'pipe']);
  let out = '';
  const collect = (chunk: Buffer) => {
    out += chunk.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const deadline = Date.now() + 30_000;
  while (!out.includes('"listening"')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the snapshot liar did not start: ${out.slice(-2000)}`);
    }
    await sleep(100);
  }
  return child;
}

async function stopLiar(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

export async function snapshotJoiner(ctx: ScenarioContext): Promise<ScenarioResult> {
  const { lab, log } = ctx;
  const joiner = lab.snapJoiner;
  const liarIp = relayAddress(lab.liarIndex);
  const liar = await startLiar(lab);
  let figures: Record<string, unknown> = {};
  const notes: string[] = [];
  let pass = false;
  try {
    // The liar, a peer of the network's nodes, holds the tip before the joiner asks it.
    const network = await converge(lab.nodes, 15_000);
    const target = (network?.block ?? (await lab.nodes[0]!.blockCount()) - 1) as number;
    log(
      `snapshot joiner: ${joiner.name} starts empty, ${target} blocks behind, snap distance below it, peers the network's nodes and the snapshot liar (${liarIp})`,
    );
    const startedAt = Date.now();
    await joiner.start();
    let atTipMs: number | undefined;
    while (Date.now() - startedAt < JOIN_MS) {
      const height = (await joiner.blockCount().catch(() => 1)) - 1;
      if (height >= target) {
        atTipMs = Date.now() - startedAt;
        break;
      }
      await sleep(200);
    }
    const sameChain = (await converge([...lab.nodes, joiner], 15_000)) !== undefined;
    let historyMs: number | undefined;
    let syncing: BlockSyncing | undefined;
    const historyFrom = Date.now();
    while (atTipMs !== undefined && Date.now() - historyFrom < HISTORY_MS) {
      syncing = await joiner.call<BlockSyncing>('blockSyncing', {}, 5000).catch(() => undefined);
      if (syncing?.historyStart === 0) {
        historyMs = Date.now() - historyFrom;
        break;
      }
      await sleep(500);
    }
    // Every block of the joiner, history included, is the network's: their block 1 is the same.
    const first = await Promise.all(
      [lab.nodes[0]!, joiner].map((n) =>
        n.call<{ hash: string }>('getBlockInfo', { block: 1 }, 5000).catch(() => undefined),
      ),
    );
    const records = await logRecords(joiner);
    const joined = records.find((r) => r.msg === 'joined from a snapshot');
    const liarBans = records.filter(
      (r) => r.msg === 'blacklisted' && r.ip === liarIp && /FORGED_SNAPSHOT/.test(String(r.reason)),
    );
    const honest = new Set(lab.nodes.map((n) => relayAddress(n.index)));
    const honestBans = records.filter((r) => r.msg === 'blacklisted' && honest.has(String(r.ip)));
    const sameHistory = first[0] !== undefined && first[0].hash === first[1]?.hash;
    pass =
      joined !== undefined &&
      liarBans.length > 0 &&
      honestBans.length === 0 &&
      atTipMs !== undefined &&
      sameChain &&
      historyMs !== undefined &&
      sameHistory;
    figures = {
      blocks: target,
      snapshot_height: joined?.height ?? null,
      seconds_to_tip: atTipMs === undefined ? null : atTipMs / 1000,
      same_chain: sameChain,
      history_filled_s: historyMs === undefined ? null : historyMs / 1000,
      history_start: syncing?.historyStart ?? null,
      same_history: sameHistory,
      liar_ip: liarIp,
      liar_banned: liarBans.length > 0,
      liar_reason: liarBans[0]?.reason ?? null,
      honest_bans: honestBans.map((r) => r.ip),
    };
    notes.push(
      `${joiner.name} ${joined ? `joined from the snapshot of block ${joined.height}` : 'did NOT join from a snapshot'}; at the tip (${target}) ${atTipMs === undefined ? 'NOT within 60 s' : `after ${atTipMs / 1000} s`} on the network's chain: ${sameChain}; history below the snapshot ${historyMs === undefined ? 'NOT filled' : `filled ${historyMs / 1000} s later`}; liar ${liarBans.length > 0 ? 'banned' : 'NOT banned'}${liarBans[0] ? ` (${liarBans[0].reason})` : ''}; ${honestBans.length} honest bans`,
    );
  } finally {
    await stopLiar(liar);
    // The scenarios after this one see the network as before it.
    await joiner.kill('SIGTERM');
  }
  return { name: 'snapshot_joiner', pass, figures, notes };
}
