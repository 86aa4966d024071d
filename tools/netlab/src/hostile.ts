/**
 * Scenario 6: one hostile node (hostile-main.ts, in a namespace of its own, behind the relay like
 * everyone) floods some nodes with operation batches that do not decode and gossips to the others
 * a block in the right place with a garbage signature. Every node it reached must ban it (its
 * `blacklisted` log record, by the relay address it comes from: getBlacklist masks IPs), no honest
 * node may be banned anywhere, and the chain must not change.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { genesisHash, parseGenesis } from '@chain/ledger';
import { converge } from './chain-watch';
import type { HostilePlan } from './hostile-main';
import { runningNodes } from './lab';
import type { LabNode } from './lab-node';
import { P2P_PORT } from './lab-node';
import { sleep } from './load';
import { logRecords } from './metrics';
import { nodeAddress, relayAddress, spawnInNamespace } from './netns';
import type { ScenarioContext, ScenarioResult } from './scenarios';
import { producerAccounts } from './scenarios';

/** Batches of garbage the hostile node floods with (a ban takes a handful). */
const FLOOD_MESSAGES = 500;

async function runHostile(index: number, plan: HostilePlan): Promise<object[]> {
  const main = fileURLToPath(new URL('./hostile-main.ts', import.meta.url));
  const child = spawnInNamespace(index, main, plan, ['ignore', 'pipe', 'inherit']);
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  await new Promise((done) => child.on('exit', done));
  clearTimeout(timer);
  return out
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as object);
}

/** IPs each node banned (its `blacklisted` records) and honest IPs it scored. */
async function bansOf(node: LabNode, honest: Set<string>) {
  const records = await logRecords(node);
  const banned = records.filter((r) => r.msg === 'blacklisted').map((r) => r.ip as string);
  const scoredHonest = records
    .filter((r) => r.msg === 'peer misbehaved' && honest.has(r.peer as string))
    .map((r) => ({ peer: r.peer, offence: r.offence, error: r.error, time: r.time }));
  return { banned, scoredHonest };
}

export async function hostileNode(ctx: ScenarioContext, index: number): Promise<ScenarioResult> {
  const { lab, log } = ctx;
  const nodes = runningNodes(lab);
  const before = await converge(nodes, 15_000);
  if (before === undefined) {
    return {
      name: 'hostile_node',
      pass: false,
      figures: {},
      notes: ['the nodes did not agree on a tip before the hostile node came'],
    };
  }
  const producers = await producerAccounts(lab);
  const accounts = [...producers.keys()].sort((a, b) => a - b);
  const last = await lab.nodes[0]!.call<{ account: number }>('getWalletInfo', {
    wallet: before.hmr,
  });
  const genesis = parseGenesis(JSON.parse(await readFile(lab.manifest.genesis, 'utf8')));
  const target = (n: LabNode) => `${relayAddress(n.index)}:${P2P_PORT}`;
  const half = Math.ceil(nodes.length / 2);
  const plan: HostilePlan = {
    ip: nodeAddress(index),
    flood: nodes.slice(half).map(target),
    invalidBlock: nodes.slice(0, half).map(target),
    genesisHashHex: Buffer.from(genesisHash(genesis)).toString('hex'),
    network: genesis.network,
    tip: { height: before.block, hashHex: before.hash.replace(/^0x/, '') },
    producer: accounts.find((a) => a > last.account) ?? accounts[0]!,
    ver: genesis.ver,
    ver_a: genesis.ver_a,
    floodMessages: FLOOD_MESSAGES,
  };
  log(
    `hostile node: floods ${nodes
      .slice(half)
      .map((n) => n.name)
      .join(',')}, invalid block to ${nodes
      .slice(0, half)
      .map((n) => n.name)
      .join(',')}`,
  );
  const phases = await runHostile(index, plan);
  await sleep(1000);
  const hostileIp = relayAddress(index);
  const honest = new Set(nodes.map((n) => relayAddress(n.index)));
  const perNode = await Promise.all(
    nodes.map(async (n) => ({ node: n.name, ...(await bansOf(n, honest)) })),
  );
  const notBanning = perNode.filter((p) => !p.banned.includes(hostileIp)).map((p) => p.node);
  const honestBanned = perNode.flatMap((p) =>
    p.banned.filter((ip) => ip !== hostileIp).map((ip) => `${p.node} banned ${ip}`),
  );
  const after = await converge(nodes, 15_000);
  const unchanged = after !== undefined && after.hash === before.hash;
  const honestScores = perNode.flatMap((p) => p.scoredHonest.map((s) => ({ node: p.node, ...s })));
  return {
    name: 'hostile_node',
    pass: notBanning.length === 0 && honestBanned.length === 0 && unchanged,
    figures: {
      hostile_ip: hostileIp,
      phases,
      not_banning: notBanning,
      honest_banned: honestBanned,
      chain_unchanged: unchanged,
      tip: before.block,
      honest_misbehaviour_records: honestScores.length,
      honest_misbehaviour: honestScores.slice(0, 20),
    },
    notes: [
      `${nodes.length - notBanning.length} of ${nodes.length} nodes banned the hostile node${notBanning.length ? ` (not: ${notBanning.join(',')})` : ''}; ${honestBanned.length} honest bans; chain ${unchanged ? 'unchanged' : 'CHANGED'} at ${before.block}; ${honestScores.length} misbehaviour records against honest nodes over the run`,
    ],
  };
}
