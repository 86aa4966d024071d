import type { Chain } from '@chain/ledger';
import { multiaddr } from '@multiformats/multiaddr';
import { describe, expect, it } from 'vitest';
import { useP2PFixture } from '../testing/p2p-fixture';
import { waitUntil } from '../testing/temp-network';
import { FrameReader, writeFrame } from '../wire/framing';
import { LIMITS } from '../wire/limits';
import { HELLO_PROTOCOL, PEERS_PROTOCOL } from '../wire/message-table';
import { decodePeerList, encodeHello } from '../wire/messages';

const { peer, bareHost } = useP2PFixture();

/** The port the asking peer says it listens on (nothing listens there: only its book entry). */
const ASKER_PORT = 4321;

describe('peer exchange', () => {
  it('hands a peer the servers it knows, never the asker itself', async () => {
    const a = await peer('127.0.0.85');
    await a.p2p.start();
    const c = await peer('127.0.0.86', { peers: [a.address()] });
    await c.p2p.start();
    await waitUntil('a to know c', () => a.p2p.knownServers().some((s) => s.ip === c.host));

    const host = await bareHost('127.0.0.87');
    const connection = await host.dial(multiaddr(`/ip4/${a.host}/tcp/${a.p2p.listenPort}`));
    const hello = await connection.newStream(HELLO_PROTOCOL);
    await writeFrame(hello, encodeHelloFor(a.chain));
    await new FrameReader(hello, { idleMs: 5000 }).expect(LIMITS.helloBytes);
    await hello.close();
    await waitUntil('a to know the asker as a server', () =>
      a.p2p.knownServers().some((s) => s.ip === '127.0.0.87' && s.lastcon > 0),
    );

    const stream = await connection.newStream(PEERS_PROTOCOL);
    await stream.close();
    const list = decodePeerList(await new FrameReader(stream).expect(LIMITS.peersResponseBytes));
    expect(list).toContainEqual({ ip: c.host, port: c.p2p.listenPort });
    expect(list).not.toContainEqual({ ip: '127.0.0.87', port: ASKER_PORT });
  });
});

/** A hello that `node`'s network accepts (its genesis, its tip). */
function encodeHelloFor(chain: Chain): Uint8Array {
  const head = chain.head();
  return encodeHello({
    genesisHash: chain.genesisHash,
    network: chain.genesis.network,
    appVersion: 'asker',
    netVer: 1,
    netVerA: 0,
    timestamp: Math.floor(Date.now() / 1000),
    listenPort: ASKER_PORT,
    head: { height: head.height, hash: head.hash, weight: head.weight },
  });
}
