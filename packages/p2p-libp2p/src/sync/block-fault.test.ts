import { DEV_PRIVATE_KEY, ErrorCode, LEDGER_BLAME, LedgerError } from '@chain/ledger';
import { BLOCK_IMPORT_REASONS, type BlockImportReason } from '@chain/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestPeer, sendFromDev } from '../testing/temp-network';
import { blockFault } from './block-fault';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Two chains of the same genesis; `source` produced block 1, the bytes are returned. */
async function blockFromAnotherNode() {
  const source = await openTestPeer('127.0.0.1');
  const target = await openTestPeer('127.0.0.1');
  cleanups.push(source.cleanup, target.cleanup);
  await sendFromDev(source.chain, 1n);
  await source.chain.produceBlock(DEV_PRIVATE_KEY);
  return { target: target.chain, block: (await source.chain.getBlockBytes(1))!.slice() };
}

async function importError(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('the import succeeded'),
    (error: unknown) => error,
  );
}

/** Whether a failed import makes the block's sender at fault: the chain's typed error decides. */
describe('blockFault', () => {
  it('blames the sender of a block the chain refuses as invalid (bad signature)', async () => {
    const { target, block } = await blockFromAnotherNode();
    // Flip a byte of the producer signature (as hostile-peer.test.ts does).
    block[150]! ^= 0xff;
    const fault = blockFault(await importError(target.importBlock(block)));
    expect(fault).toEqual({
      code: ErrorCode.INVALID_BLOCK,
      text: expect.stringMatching(/^BAD_BLOCK_SIGNATURE /),
    });
  });

  it('does not blame the sender of a valid block that does not fit this chain now', async () => {
    const { target, block } = await blockFromAnotherNode();
    await target.importBlock(block);
    const error = await importError(target.importBlock(block));
    expect(error).toMatchObject({ code: ErrorCode.INVALID_BLOCK, reason: 'NOT_NEXT_BLOCK' });
    expect(blockFault(error)).toBeUndefined();
  });

  it('bans by the blame the ledger gives each reason an import can refuse a block with', () => {
    for (const reason of Object.keys(BLOCK_IMPORT_REASONS) as BlockImportReason[]) {
      const fault = blockFault(new LedgerError(ErrorCode.INVALID_BLOCK, reason, 'refused'));
      expect(fault !== undefined, reason).toBe(LEDGER_BLAME[reason] === 'sender');
    }
  });

  it('does not blame for an error that only looks like the chain’s (code 1003, not a ChainError)', () => {
    const lookalike = { code: 1003, reason: 'BAD_STATE_ROOT', message: 'from elsewhere' };
    expect(blockFault(lookalike)).toBeUndefined();
    expect(blockFault(new Error('INVALID_BLOCK 1003'))).toBeUndefined();
  });
});
