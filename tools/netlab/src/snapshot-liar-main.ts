/**
 * The snapshot liar's process, run inside its own namespace (snapshot-joiner.ts starts it with its
 * plan as argv[2]): a real node of the network (this repository's chain and P2P node, in-process)
 * on a copy of the prebuilt chain, that follows the chain like any other but serves snapshots whose
 * first chunk is forged, its manifest made to match (forgeServedSnapshots). It prints one JSON line
 * once it listens, and runs until SIGTERM.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createChain, parseGenesis } from '@chain/ledger';
import { createP2PNode } from '@chain/p2p-libp2p';
import { forgeServedSnapshots } from '@chain/p2p-libp2p/testing';
import { createNodeRegistry, NET_PROTOCOL } from 'chain-node';

export interface SnapshotLiarPlan {
  /** This process's own address (in its namespace) and port. */
  ip: string;
  port: number;
  /** `ip:port` of the network's nodes (through the relay). */
  peers: string[];
  genesisFile: string;
  /** A data directory: `chain` (a copy of the prebuilt chain's) and `p2p`. */
  dir: string;
}

const plan = JSON.parse(process.argv[2]!) as SnapshotLiarPlan;
const report = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

const genesis = parseGenesis(JSON.parse(await readFile(plan.genesisFile, 'utf8')));
const chain = createChain({
  dataDir: plan.dir,
  genesis,
  registry: createNodeRegistry(),
});
await chain.open();
forgeServedSnapshots(chain);
const p2p = createP2PNode({
  chain,
  dir: join(plan.dir, 'p2p'),
  host: plan.ip,
  port: plan.port,
  appVersion: 'snapshot-liar',
  netProtocol: NET_PROTOCOL,
  peers: plan.peers,
  sync: 'full',
});
await p2p.start();
report({ phase: 'listening', head: chain.head().height });
process.once('SIGTERM', () => {
  void p2p
    .close()
    .then(() => chain.close())
    .finally(() => process.exit(0));
});
