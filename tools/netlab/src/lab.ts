/**
 * The lab's world: a devnet (chain-node's own `createDevnet`), the namespaces and bridge, the delay
 * relay, and the node processes. `teardown` removes everything it made; `withLab` runs it also when
 * the run fails or is interrupted (SIGINT / SIGTERM).
 */
import { randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDevnet, type DevnetManifest } from 'chain-node';
import { LabNode, P2P_PORT } from './lab-node';
import {
  createBridge,
  createNodeNamespace,
  nodeAddress,
  relayAddress,
  removeLeftovers,
} from './netns';
import { type Prebuilt, prebuildChain } from './prebuild';
import { createRelayControl, type RelayControl, type RelayMode } from './relay-control';

/** The snapshot joiner's --snap-distance: below the prebuilt chain's height. */
export const SNAP_DISTANCE = 1000;

export interface LabConfig {
  /** Nodes of the network (the late joiners are more, started later). */
  nodes: number;
  /** Late joiners: fresh nodes that join one after another, each once (the late joiner scenario). */
  joins: number;
  producers: number;
  accounts: number;
  blockTimeMs: number;
  latencyMs: number;
  jitterMs: number;
  /** Blocks built before the nodes start (the late joiner's backlog); 0 for none. */
  prebuildBlocks: number;
  /** Where the delay relay runs: its own process (default) or inside the lab's. */
  relayMode: RelayMode;
  /**
   * `all`: each of the network's nodes is given every other's address (a full mesh from the
   * start); `one`: each is given node 1's only and finds the rest by peer exchange (discovery).
   */
  bootstrap: 'all' | 'one';
  /** The network's nodes' --log-level (info by default; e.g. `p2p=debug,info` to investigate). */
  logLevel?: string;
  log: (line: string) => void;
}

export interface Lab {
  readonly config: LabConfig;
  readonly dir: string;
  readonly manifest: DevnetManifest;
  readonly relay: RelayControl;
  /** The network's nodes (started by `startNetwork`). */
  readonly nodes: LabNode[];
  /** The late joiners, in the order they join. */
  readonly lateJoiners: LabNode[];
  /** A fresh node that joins from a snapshot (snapshot-joiner.ts), facing the snapshot liar. */
  readonly snapJoiner: LabNode;
  /** Lab node number of the hostile node (hostile.ts): a namespace, no chain-node. */
  readonly hostileIndex: number;
  /** Lab node number of the snapshot liar (snapshot-liar-main.ts), and its copy of the chain. */
  readonly liarIndex: number;
  readonly liarDir: string;
  readonly rpcPassword: string;
  /** The chain built before the start, with the local import rate of its blocks. */
  readonly prebuilt: Prebuilt | undefined;
}

export async function prepareLab(config: LabConfig): Promise<Lab> {
  const dir = await mkdtemp(join(tmpdir(), 'chain-netlab-'));
  // The network's nodes, the late joiners, then the snapshot joiner.
  const total = config.nodes + config.joins + 1;
  const manifest = await createDevnet({
    dir: join(dir, 'devnet'),
    nodes: total,
    producers: config.producers,
    accounts: config.accounts,
    balance: '1000000',
    network: 'netlab',
    passphrase: 'netlab',
  });
  let prebuilt: Prebuilt | undefined;
  if (config.prebuildBlocks > 0) {
    config.log(`building ${config.prebuildBlocks} blocks for the late joiner to sync`);
    prebuilt = await prebuildChain(
      manifest,
      config.prebuildBlocks,
      manifest.nodes.slice(config.nodes).map((node) => node.name),
    );
    config.log(
      `built ${prebuilt.blocks} blocks in ${prebuilt.buildSeconds} s; local import of the same blocks: ${prebuilt.localImportBlocksPerS} blocks/s`,
    );
  }
  const logDir = join(dir, 'logs');
  await mkdir(logDir);
  const rpcPassword = randomBytes(16).toString('hex');
  const all = Array.from({ length: total }, (_, k) => k + 1);
  const hostileIndex = total + 1;
  const liarIndex = total + 2;
  const liarDir = join(dir, 'snapshot-liar');
  // The liar starts where the network's nodes started: it takes the snapshot it serves at the
  // same height as they took theirs.
  if (prebuilt) {
    await cp(join(manifest.nodes[0]!.datadir, 'chain'), join(liarDir, 'chain'), {
      recursive: true,
    });
  }
  const nodes = all.map(
    (index) =>
      new LabNode({
        index,
        manifest,
        // The network's nodes dial each other; a late joiner dials them, as a node joining a
        // network does: they learn its address from its hello.
        peers:
          config.bootstrap === 'one'
            ? index === 1
              ? []
              : [1]
            : all.filter((j) => j !== index && j <= config.nodes),
        blockTimeMs: config.blockTimeMs,
        logDir,
        rpcPassword,
        // A late joiner logs each sync range it receives (when its first one came, lateJoiner).
        ...(index > config.nodes
          ? { logLevel: 'p2p=debug,info' }
          : config.logLevel !== undefined
            ? { logLevel: config.logLevel }
            : {}),
        // The snapshot joiner: the lab's chain is far shorter than the default snap distance.
        ...(index === total
          ? {
              peers: [...all.filter((j) => j <= config.nodes), liarIndex],
              args: ['--sync', 'snap', '--snap-distance', String(SNAP_DISTANCE)],
            }
          : {}),
      }),
  );
  const relay = createRelayControl(
    config.relayMode,
    {
      // The hostile node (hostile.ts) and the liar reach the others through the relay too.
      nodes: [...all, hostileIndex, liarIndex],
      port: P2P_PORT,
      delay: { latencyMs: config.latencyMs, jitterMs: config.jitterMs },
    },
    { nodeAddress, relayAddress },
  );
  return {
    config,
    dir,
    manifest,
    relay,
    nodes: nodes.slice(0, config.nodes),
    lateJoiners: nodes.slice(config.nodes, total - 1),
    snapJoiner: nodes[total - 1]!,
    hostileIndex,
    liarIndex,
    liarDir,
    rpcPassword,
    prebuilt,
  };
}

/** Namespaces, bridge and relay (before any node starts). */
export async function buildNetwork(lab: Lab): Promise<void> {
  await createBridge();
  for (const node of labNodes(lab)) await createNodeNamespace(node.index);
  await createNodeNamespace(lab.hostileIndex);
  await createNodeNamespace(lab.liarIndex);
  await lab.relay.start();
}

/** Every chain-node of the lab: the network's, then the late joiners and the snapshot joiner. */
export function labNodes(lab: Lab): LabNode[] {
  return [...lab.nodes, ...lab.lateJoiners, lab.snapJoiner];
}

/** The lab's chain-nodes running now. */
export function runningNodes(lab: Lab): LabNode[] {
  return labNodes(lab).filter((node) => node.running);
}

export async function startNetwork(lab: Lab): Promise<void> {
  await Promise.all(lab.nodes.map((node) => node.start()));
}

export async function teardown(lab: Lab | undefined, keepDir: boolean): Promise<void> {
  if (lab) {
    await Promise.all(labNodes(lab).map((node) => node.kill('SIGKILL')));
    await lab.relay.close().catch(() => undefined);
  }
  await removeLeftovers();
  if (lab && !keepDir) await rm(lab.dir, { recursive: true, force: true });
}

/**
 * Runs `body` with a lab and tears it down afterwards: on success, on failure, and on SIGINT /
 * SIGTERM (then exits 130 / 143).
 */
export async function withLab<T>(
  config: LabConfig,
  keepDir: boolean,
  body: (lab: Lab) => Promise<T>,
): Promise<T> {
  const leftovers = await removeLeftovers();
  if (leftovers.length > 0)
    config.log(`removed leftovers of an earlier run: ${leftovers.join(' ')}`);
  let lab: Lab | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    config.log(`${signal}: removing the lab`);
    void teardown(lab, keepDir).finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    lab = await prepareLab(config);
    await buildNetwork(lab);
    return await body(lab);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await teardown(lab, keepDir);
  }
}
