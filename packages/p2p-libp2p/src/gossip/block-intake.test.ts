import { randomBytes } from 'node:crypto';
import { nativeHashes, nativeSecp256k1 } from '@chain/crypto/native';
import {
  blockSigningHash,
  type Chain,
  DEV_PRIVATE_KEY,
  decodeBlock,
  encodeBlock,
  encodeBlockHeader,
} from '@chain/ledger';
import { describe, expect, it } from 'vitest';
import type { P2PLogger } from '../p2p-options';
import { blocksTopic } from '../testing/hostile-peer';
import { useP2PFixture } from '../testing/p2p-fixture';
import { growChain, sendFromDev, waitUntil } from '../testing/temp-network';

const fixture = useP2PFixture();
const { peer } = fixture;

/** A logger that keeps the misbehaviour records (the node logs each one). */
function recordingLog(): P2PLogger & { offences: Array<{ peer: unknown; offence: unknown }> } {
  const offences: Array<{ peer: unknown; offence: unknown }> = [];
  return {
    offences,
    debug: () => {},
    info: () => {},
    warn(details: { peer?: unknown; offence?: unknown }, message: string) {
      if (message === 'peer misbehaved')
        offences.push({ peer: details.peer, offence: details.offence });
    },
  };
}

/** Hashes of the blocks `chain` was asked to place, in the order they reached its validator. */
function seenBlocks(chain: Chain): string[] {
  const seen: string[] = [];
  const inspect = chain.inspectBlock.bind(chain);
  chain.inspectBlock = (bytes) => {
    const placement = inspect(bytes);
    seen.push(Buffer.from(placement.hash).toString('hex'));
    return placement;
  };
  return seen;
}

/**
 * A block on `parent` signed by the dev producer whose body is wrong (a state root nothing leads
 * to): its header passes every header check, its import fails.
 */
function badBodyBlock(
  genesisHash: Uint8Array,
  like: Uint8Array,
  parent: { height: number; hash: Uint8Array },
): Uint8Array {
  const { header } = decodeBlock(like, nativeHashes);
  const headerBytes = encodeBlockHeader({
    ...header,
    height: parent.height + 1,
    prevHash: parent.hash,
    stateRoot: new Uint8Array(randomBytes(32)),
  });
  const signature = nativeSecp256k1.sign(
    blockSigningHash(genesisHash, headerBytes, nativeHashes),
    DEV_PRIVATE_KEY,
  );
  return encodeBlock(headerBytes, signature, []);
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('block gossip: forwarded on its header, imported after', () => {
  it('forwards a block to C through B before B has imported it', async () => {
    const a = await peer('127.0.0.61');
    await a.p2p.start();
    // C reaches A only through B (it would learn A's address from B).
    a.p2p.addBlacklist('127.0.0.63', 'test: C only through B');
    const b = await peer('127.0.0.62', { peers: [a.address()] });
    await b.p2p.start();
    const c = await peer('127.0.0.63', { peers: [b.address()] });
    await c.p2p.start();
    await waitUntil('b and c to connect', () => b.p2p.connections().length === 2);
    // B imports nothing (gossip or sync) until C has the block, or the test times out.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let importing = 0;
    const importBlock = b.chain.importBlock.bind(b.chain);
    b.chain.importBlock = async (bytes) => {
      importing++;
      await held;
      await importBlock(bytes);
    };
    const importBlocks = b.chain.importBlocks.bind(b.chain);
    b.chain.importBlocks = async (source, options) => {
      await held;
      return importBlocks(source, options);
    };
    await sendFromDev(a.chain, 5n);
    const produced = await a.chain.produceBlock(DEV_PRIVATE_KEY);
    try {
      await waitUntil('c to import the block', () => c.chain.head().height === produced!.block);
      // B had started the import (forwarding did not wait for it), and not finished it.
      expect(importing).toBe(1);
      expect(b.chain.head().height).toBe(0);
      expect(hex(c.chain.head().hash)).toBe(hex(a.chain.head().hash));
    } finally {
      release();
    }
    await waitUntil('b to import it', () => b.chain.head().height === produced!.block);
  });

  it('records a body that fails against its sender, and does not forward its child', async () => {
    const log = recordingLog();
    const b = await peer('127.0.0.64', { log });
    await b.p2p.start();
    const c = await peer('127.0.0.65', { peers: [b.address()] });
    const atC = seenBlocks(c.chain);
    await c.p2p.start();
    await waitUntil('c to connect', () => b.p2p.connections().length === 1);
    // A valid block 1, from a chain of the same genesis that is on no network.
    const source = await peer('127.0.0.66');
    await growChain(source.chain, 1);
    const good = (await source.chain.getBlockBytes(1))!;
    const genesis = b.chain.head();
    const bad = badBodyBlock(b.chain.genesisHash, good, genesis);
    const badBlock = decodeBlock(bad, nativeHashes);
    const child = badBodyBlock(b.chain.genesisHash, good, { height: 1, hash: badBlock.hash });

    const hostileIp = '127.0.0.67';
    const { host: hostile } = await fixture.connectedHostile(hostileIp, b);
    const topic = blocksTopic(b.chain);
    hostile.services.pubsub.subscribe(topic);
    await waitUntil(
      'b on the topic',
      () => hostile.services.pubsub.getSubscribers(topic).length === 1,
    );

    await hostile.services.pubsub.publish(topic, bad);
    await waitUntil('b to record the failed body', () =>
      log.offences.some((o) => o.peer === hostileIp && o.offence === 'invalidBlockBody'),
    );
    await hostile.services.pubsub.publish(topic, child);
    await hostile.services.pubsub.publish(topic, good);
    await waitUntil('c to import the good block', () => c.chain.head().height === 1);

    // The bad block reached C on its header; its child did not, and B took the good block after.
    expect(atC).toContain(hex(badBlock.hash));
    expect(atC).not.toContain(hex(decodeBlock(child, nativeHashes).hash));
    expect(hex(b.chain.head().hash)).toBe(hex(decodeBlock(good, nativeHashes).hash));
    // One bad body is a record, not a ban: an honest relay forwards on the header too.
    expect(b.p2p.blacklist().map((entry) => entry.ip)).not.toContain(hostileIp);
  });
});
