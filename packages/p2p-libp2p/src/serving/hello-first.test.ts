import { describe, expect, it } from 'vitest';
import { dialPeer, sayHello, streamFate } from '../testing/hostile-peer';
import { useP2PFixture } from '../testing/p2p-fixture';
import { growChain } from '../testing/temp-network';
import { FrameReader, writeFrame } from '../wire/framing';
import { LIMITS } from '../wire/limits';
import { BLOCKS_PROTOCOL } from '../wire/message-table';
import { decodeBlocksResponse, encodeBlocksRequest } from '../wire/messages';

const { peer, bareHost } = useP2PFixture();

describe('requests opened alongside the hello', () => {
  it('serves a blocks request whose stream was opened before the hello, once the hello is done', async () => {
    const server = await peer('127.0.0.41');
    await growChain(server.chain, 3);
    await server.p2p.start();
    const connection = await dialPeer(await bareHost('127.0.0.42'), server);

    // A node starting behind opens its first blocks stream while its hello is on the way.
    const blocks = await connection.newStream(BLOCKS_PROTOCOL);
    await writeFrame(
      blocks,
      encodeBlocksRequest({
        locator: [(await server.chain.blockHash(0))!],
        maxBlocks: 10,
        maxBytes: LIMITS.syncBatchBytes,
      }),
    );
    expect(await streamFate(blocks, 300)).toBe('open');
    await sayHello(connection, server.chain);

    const reader = new FrameReader(blocks, { idleMs: 5000 });
    const header = decodeBlocksResponse(await reader.expect(256));
    expect(header).toMatchObject({ found: true, forkHeight: 0, count: 3 });
    for (let h = 1; h <= 3; h++) {
      const bytes = await reader.expect(LIMITS.blockBytes);
      expect(server.chain.inspectBlock(bytes).height).toBe(h);
    }
    expect(server.p2p.blacklist()).toEqual([]);
  });

  it('drops such a stream when no hello comes', async () => {
    const server = await peer('127.0.0.43', { helloTimeoutMs: 500 });
    await server.p2p.start();
    const connection = await dialPeer(await bareHost('127.0.0.44'), server);
    const blocks = await connection.newStream(BLOCKS_PROTOCOL);
    expect(await streamFate(blocks, 3000)).not.toBe('open');
  });
});
