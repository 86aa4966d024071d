import type { Chain } from '@chain/ledger';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { type GossipSub, gossipsub } from '@libp2p/gossipsub';
import { type Identify, identify } from '@libp2p/identify';
import type { Connection, Libp2p, Stream } from '@libp2p/interface';
import { tcp } from '@libp2p/tcp';
import { multiaddr } from '@multiformats/multiaddr';
import { createLibp2p } from 'libp2p';
import { installPromiseWithResolvers } from '../polyfill';
import { FrameReader, writeFrame } from '../wire/framing';
import { LIMITS } from '../wire/limits';
import { HELLO_PROTOCOL } from '../wire/message-table';
import { encodeHello } from '../wire/messages';
import { type TestPeer, waitUntil } from './temp-network';

/**
 * A peer driven by hand: plain libp2p (TCP from `ip`, noise, yamux, identify, gossipsub), none of
 * this package's rules, so a test can make it do what an honest node never would.
 */
export type HostileHost = Libp2p<{ identify: Identify; pubsub: GossipSub }>;

export async function openHostileHost(ip: string): Promise<HostileHost> {
  installPromiseWithResolvers();
  return createLibp2p({
    addresses: { listen: [`/ip4/${ip}/tcp/0`] },
    transports: [tcp({ dialOpts: { localAddress: ip } as object })],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: {
      identify: identify(),
      pubsub: gossipsub({ allowPublishToZeroTopicPeers: true, emitSelf: false }),
    },
  });
}

/** A bare host (no services): only dials, for tests that need many identities. */
export async function openBareHost(ip: string): Promise<Libp2p> {
  installPromiseWithResolvers();
  return createLibp2p({
    transports: [tcp({ dialOpts: { localAddress: ip } as object })],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
  });
}

export function dialPeer(host: Libp2p, peer: TestPeer, timeoutMs = 5000): Promise<Connection> {
  return host.dial(multiaddr(`/ip4/${peer.host}/tcp/${peer.p2p.listenPort}`), {
    signal: AbortSignal.timeout(timeoutMs),
  });
}

/** A well-formed hello for `chain`'s network, claiming its genesis as the tip. */
export function helloFor(chain: Chain): Uint8Array {
  return encodeHello({
    genesisHash: chain.genesisHash,
    network: chain.genesis.network,
    appVersion: 'hostile',
    netVer: 1,
    netVerA: 0,
    timestamp: Math.floor(Date.now() / 1000),
    listenPort: 0,
    head: { height: 0, hash: chain.genesisHash, weight: 0 },
  });
}

/** One hello exchange, as the dialling side: send ours, read the answer, close. */
export async function sayHello(connection: Connection, chain: Chain): Promise<void> {
  const stream = await connection.newStream(HELLO_PROTOCOL);
  await writeFrame(stream, helloFor(chain));
  await new FrameReader(stream, { idleMs: 5000 }).expect(LIMITS.helloBytes);
  await stream.close();
}

/**
 * Dials `victim` from `host` (dialling from `ip`) and says hello; resolves once the victim lists the
 * connection.
 */
export async function connectHostile(
  host: Libp2p,
  ip: string,
  victim: TestPeer,
): Promise<Connection> {
  const connection = await dialPeer(host, victim);
  await sayHello(connection, victim.chain);
  await waitUntil('the hello to be accepted', () =>
    victim.p2p.connections().some((c) => c.ip === ip && c.appver === 'hostile'),
  );
  return connection;
}

/** Subscribes `host` to `topic` and waits until it sees the victim there (its only peer). */
export async function joinTopic(host: HostileHost, topic: string): Promise<void> {
  host.services.pubsub.subscribe(topic);
  await waitUntil(
    'the victim to be seen on the topic',
    () => host.services.pubsub.getSubscribers(topic).length === 1,
  );
}

/** Resolves with how the stream ended: 'reset' (the other side refused it) or 'open' after `ms`. */
export async function streamFate(stream: Stream, ms: number): Promise<'reset' | 'closed' | 'open'> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (stream.status === 'reset' || stream.status === 'aborted') return 'reset';
    if (stream.status === 'closed') return 'closed';
    await new Promise((r) => setTimeout(r, 10));
  }
  return 'open';
}

/** The gossip topic of blocks of `chain`'s network. */
export function blocksTopic(chain: Chain): string {
  return `/chain/${Buffer.from(chain.genesisHash).toString('hex').slice(0, 16)}/blocks/1`;
}

export function opsTopic(chain: Chain): string {
  return `/chain/${Buffer.from(chain.genesisHash).toString('hex').slice(0, 16)}/ops/1`;
}
