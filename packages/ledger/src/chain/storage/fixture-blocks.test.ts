import { decodeAddress } from '@chain/crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createDevGenesis, DEV_PRIVATE_KEY } from '../../genesis';
import { createRegistry } from '../../operation/ledger-registry';
import { encodeUnsignedOperation, OPERATION_SIGNATURE_LENGTH } from '../../operation/operation';
import { TRANSFER_OPTYPE, transferCodec } from '../../operation/transfer';
import {
  COIN,
  fundAndActivate,
  openTempChain,
  type TempChain,
  testWallet,
} from '../../testing/temp-chain';
import { appendUnexecutedBlocks } from './fixture-blocks';

// A benchmark fixture's long history, appended to a real data directory without executing it:
// the chain opens on it, its head is the last block, and the history index lists its operations.

const chains: TempChain[] = [];
afterEach(async () => {
  while (chains.length > 0) await chains.pop()!.cleanup();
});

describe('appendUnexecutedBlocks', () => {
  it('appends linked blocks the chain opens on, indexed by wallet', async () => {
    const t = await openTempChain({ dirPrefix: 'fixture-blocks-' });
    chains.push(t);
    const alice = testWallet('fixture alice');
    const bob = testWallet('fixture bob');
    await fundAndActivate(t.chain, [alice, bob], COIN);
    const before = t.chain.head();
    const aliceNumber = t.chain.accountByAddress(alice.address)!.number;
    const bobHash = decodeAddress(bob.address, t.chain.prefix).hash160;
    const numbers = new Map([
      [Buffer.from(bobHash).toString('hex'), t.chain.accountByAddress(bob.address)!.number],
    ]);
    await t.chain.close();

    const transfer = (n: number): Uint8Array => {
      const unsigned = encodeUnsignedOperation(
        { optype: TRANSFER_OPTYPE, subtype: 0, signer: aliceNumber, nOperation: n, fee: 0n },
        transferCodec,
        {
          receiver: { hash160: bobHash },
          amount: BigInt(n),
          payloadType: 0,
          payload: new Uint8Array(0),
        },
      );
      const bytes = new Uint8Array(unsigned.length + OPERATION_SIGNATURE_LENGTH);
      bytes.set(unsigned, 0);
      return bytes;
    };
    const appended = await appendUnexecutedBlocks(t.dir, {
      genesis: createDevGenesis(),
      registry: createRegistry(),
      producerKey: DEV_PRIVATE_KEY,
      blocks: [
        [transfer(2), transfer(3)],
        [transfer(4), transfer(5)],
        [transfer(6), transfer(7)],
      ],
      resolve: (hash) => numbers.get(Buffer.from(hash).toString('hex')),
    });
    expect(appended).toEqual({ height: before.height + 3, operations: 6 });

    const reopened = await openTempChain({ dataDir: t.dir });
    try {
      expect(reopened.chain.head().height).toBe(before.height + 3);
      const page = await reopened.chain.walletOperations(bob.address, { max: 4 });
      expect(page.operations.map((op) => [op.block, op.opblock, op.amount])).toEqual([
        [before.height + 3, 1, '7'],
        [before.height + 3, 0, '6'],
        [before.height + 2, 1, '5'],
        [before.height + 2, 0, '4'],
      ]);
      const info = await reopened.chain.blockInfo(before.height + 2);
      const parent = await reopened.chain.blockInfo(before.height + 1);
      expect(info.one_hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(info.one_hash).toBe(parent.hash);
      expect(info.four_hash).toBe((await reopened.chain.blockInfo(before.height)).four_hash);
      expect(await reopened.chain.heightOfHash(Buffer.from(info.hash.slice(2), 'hex'))).toBe(
        before.height + 2,
      );
    } finally {
      await reopened.chain.close();
    }
  });
});
