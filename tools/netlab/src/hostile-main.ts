/**
 * The hostile node's process, run inside its own namespace (hostile.ts starts it with its plan as
 * argv[2]): plain libp2p speaking the network's hello properly, then misbehaving. It floods the
 * operations topic of some nodes with batches that do not decode, and gossips to the others a block
 * in the right place (the tip's successor) whose producer signature is garbage. It prints one JSON
 * line per phase and exits.
 */
import { randomBytes } from 'node:crypto';
import { type Chain, encodeBlock, encodeBlockHeader, ZERO_HASH } from '@chain/ledger';
import {
  blocksTopic,
  type HostileHost,
  openHostileHost,
  opsTopic,
  sayHello,
} from '@chain/p2p-libp2p/testing';
import type { Connection } from '@libp2p/interface';
import { multiaddr } from '@multiformats/multiaddr';

export interface HostilePlan {
  /** This process's own address (in its namespace). */
  ip: string;
  /** `ip:port` of the nodes to flood, and of those to send the invalid block to. */
  flood: string[];
  invalidBlock: string[];
  genesisHashHex: string;
  network: string;
  /** Where the invalid block goes: after the network's tip. */
  tip: { height: number; hashHex: string };
  /** The account of the producer in turn after the tip (the block claims to be its). */
  producer: number;
  ver: number;
  ver_a: number;
  floodMessages: number;
}

const plan = JSON.parse(process.argv[2]!) as HostilePlan;
const hex = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));
// What the hello and the topic names read of a chain.
const chain = {
  genesisHash: hex(plan.genesisHashHex),
  genesis: { network: plan.network },
} as unknown as Chain;
const report = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

async function connect(host: HostileHost, targets: string[]): Promise<Connection[]> {
  const connections: Connection[] = [];
  for (const target of targets) {
    const [ip, port] = target.split(':');
    try {
      const connection = await host.dial(multiaddr(`/ip4/${ip}/tcp/${port}`), {
        signal: AbortSignal.timeout(10_000),
      });
      await sayHello(connection, chain);
      connections.push(connection);
    } catch (error) {
      const cause = (error as Error & { cause?: Error }).cause;
      report({
        phase: 'connect',
        target,
        error: `${(error as Error).message}${cause ? `: ${cause.message}` : ''}`,
      });
    }
  }
  return connections;
}

/** Waits until `count` peers are on `topic` (or 10 s). */
async function onTopic(host: HostileHost, topic: string, count: number): Promise<number> {
  host.services.pubsub.subscribe(topic);
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && host.services.pubsub.getSubscribers(topic).length < count) {
    await new Promise((r) => setTimeout(r, 50));
  }
  return host.services.pubsub.getSubscribers(topic).length;
}

function invalidBlock(): Uint8Array {
  const header = encodeBlockHeader({
    height: plan.tip.height + 1,
    prevHash: hex(plan.tip.hashHex),
    timestamp: Math.floor(Date.now() / 1000),
    producer: plan.producer,
    opsRoot: ZERO_HASH,
    stateRoot: randomBytes(32),
    ver: plan.ver,
    ver_a: plan.ver_a,
    payload: new Uint8Array(0),
    producers: [],
  });
  return encodeBlock(header, randomBytes(64), []);
}

async function closeAll(connections: Connection[]): Promise<void> {
  await Promise.all(connections.map((c) => c.close().catch(() => undefined)));
}

const host = await openHostileHost(plan.ip);
await host.start();

// Phase 1: a flood of operation batches that do not decode, as fast as gossip takes them.
const flooded = await connect(host, plan.flood);
const floodPeers = await onTopic(host, opsTopic(chain), flooded.length);
let sent = 0;
for (; sent < plan.floodMessages; sent++) {
  if (flooded.every((c) => c.status !== 'open')) break;
  await host.services.pubsub.publish(opsTopic(chain), randomBytes(200)).catch(() => undefined);
}
await new Promise((r) => setTimeout(r, 2000));
report({
  phase: 'flood',
  connected: flooded.length,
  onTopic: floodPeers,
  sent,
  stillOpen: flooded.filter((c) => c.status === 'open').length,
});
await closeAll(flooded);
host.services.pubsub.unsubscribe(opsTopic(chain));

// Phase 2: an invalid block where the next block goes.
const gossiped = await connect(host, plan.invalidBlock);
const blockPeers = await onTopic(host, blocksTopic(chain), gossiped.length);
const published = await host.services.pubsub
  .publish(blocksTopic(chain), invalidBlock())
  .then((r) => r.recipients.length)
  .catch((error: Error) => error.message);
await new Promise((r) => setTimeout(r, 2000));
report({
  phase: 'invalidBlock',
  connected: gossiped.length,
  onTopic: blockPeers,
  published,
  stillOpen: gossiped.filter((c) => c.status === 'open').length,
});
await closeAll(gossiped);
await host.stop();
process.exit(0);
