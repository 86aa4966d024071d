import { decodeAddress, ErrorCode } from '@chain/crypto';
import { MAX_HISTORY_PAGE } from '@chain/spec';
import { type BlockHeader, decodeBlock } from '../../block/block';
import { LedgerError, StoreError } from '../../errors';
import { decodeOperation, type Operation } from '../../operation/operation';
import { presentMinedAt } from '../state/chain-presentation';
import type { QueriesCore } from '../state/chain-queries';
import type { OperationObject } from '../state/presentation';
import { heightKey } from '../storage/store';
import {
  accountPrefix,
  type HistoryRange,
  type OperationLocation,
  readHistory,
  tokenOfKey,
} from './history-index';
import { readOneChain } from './one-chain-read';

/** Reads of the history index: a wallet's or a token's operations, a wallet's tokens. */

export type HistoryCore = QueriesCore &
  Pick<import('../chain-core').ChainCore, 'indexFrom' | 'rollbacks' | 'tasks'>;

/** Which page of a history to read (Chain.walletOperations). */
export interface HistoryQuery {
  /** Most operations (1 to MAX_HISTORY_PAGE). */
  max: number;
  /** The cursor a previous page returned: the page after it, in the same direction. */
  cursor?: string;
  /** Oldest first from this block on; without it, newest first. */
  fromBlock?: number;
}

/** A mined operation as the history returns it: with its confirmations (head - block + 1). */
export type HistoryOperation = OperationObject & { confirmations: number };

export interface HistoryPage {
  operations: HistoryOperation[];
  /** Where the next page starts (pass it as `cursor`); null when this page is the last. */
  cursor: string | null;
  /** The lowest block from which the index is complete: no history below it is listed. */
  indexFrom: number;
}

export { MAX_HISTORY_PAGE };

/** The operations touching a wallet (signer, receiver, token wallets, participation wallets). */
export function walletOperations(
  core: HistoryCore,
  address: string,
  query: HistoryQuery,
): Promise<HistoryPage> {
  const { hash160 } = decodeAddress(address, core.prefix, 'wallet');
  const number = core.root.numberOf(hash160);
  if (number === undefined) {
    return Promise.resolve({ operations: [], cursor: null, indexFrom: core.indexFrom });
  }
  const store = core.requireStore();
  return readOneChain(core, () => pageOf(core, store.addressHistory, accountPrefix(number), query));
}

/** The operations of a token (its creation, its transfers, its administration). */
export function tokenOperations(
  core: HistoryCore,
  address: string,
  query: HistoryQuery,
): Promise<HistoryPage> {
  const { hash160 } = decodeAddress(address, core.prefix, 'token');
  const store = core.requireStore();
  return readOneChain(core, () => pageOf(core, store.tokenHistory, hash160, query));
}

/**
 * The hashes of the tokens a wallet's operations ever moved, in hash order (at most `max`): the
 * caller reads each one's balance from the state (a token whose balance went to 0, or whose
 * operations a rollback undid, has none there).
 */
export async function walletTokenHashes(
  core: HistoryCore,
  address: string,
  max: number,
): Promise<Uint8Array[]> {
  const { hash160 } = decodeAddress(address, core.prefix, 'wallet');
  const number = core.root.numberOf(hash160);
  if (number === undefined) return [];
  const store = core.requireStore();
  const prefix = accountPrefix(number);
  const end = accountPrefix(number + 1);
  const out: Uint8Array[] = [];
  const range = number === 0xffff_ffff ? { gte: prefix } : { gte: prefix, lt: end };
  for await (const key of store.walletTokens.keys({ ...range, limit: max })) {
    out.push(tokenOfKey(key));
  }
  return out;
}

async function pageOf(
  core: HistoryCore,
  sublevel: ReturnType<HistoryCore['requireStore']>['addressHistory'],
  prefix: Uint8Array,
  query: HistoryQuery,
): Promise<HistoryPage> {
  const range = rangeOf(query);
  const { locations, more } = await readHistory(sublevel, prefix, range);
  const head = core.headState.height;
  const operations: HistoryOperation[] = [];
  const blocks = new Map<number, PageBlock>();
  for (const { height, index } of locations) {
    // A key the head has not reached (a block being written behind) is not history yet.
    if (height > head) continue;
    let block = blocks.get(height);
    if (block === undefined) {
      block = await pageBlock(core, height);
      blocks.set(height, block);
    }
    const bytes = block.operations[index];
    if (bytes === undefined) continue;
    const op = block.decoded?.[index] ?? decodeOperation(bytes, core.registry, core.hashes, true);
    operations.push({
      ...presentMinedAt(core, block.header, op, index, block.operations.length, block.zeroFee),
      confirmations: head - height + 1,
    });
  }
  const last = locations.at(-1);
  return {
    operations,
    cursor: more && last !== undefined ? encodeCursor(last, range.ascending) : null,
    indexFrom: core.indexFrom,
  };
}

/** A block as a history page reads it: its operations' bytes, decoded only where the page needs. */
interface PageBlock {
  header: BlockHeader;
  operations: readonly Uint8Array[];
  /** Already decoded (the block cache's), else undefined. */
  decoded?: readonly Operation[];
  zeroFee: number;
}

/**
 * A block from the block cache, or from the store without decoding its operations: a page shows
 * one or a few operations of a block that may hold thousands (the figure: a page of 100 in 20 ms).
 */
async function pageBlock(core: HistoryCore, height: number): Promise<PageBlock> {
  const cached = core.blockCache.get(height);
  if (cached !== undefined) {
    return {
      header: cached.block.header,
      operations: cached.block.operations,
      decoded: cached.ops,
      zeroFee: cached.zeroFee,
    };
  }
  const store = core.requireStore();
  const bytes = await store.read(store.blocks, heightKey(height));
  if (bytes === undefined) {
    throw new StoreError(ErrorCode.INVALID_DATA, 'CORRUPT_DATADIR', `block ${height} is missing`);
  }
  const block = decodeBlock(bytes, core.hashes);
  let zeroFee = 0;
  for (const op of block.operations) if (op[FEE_LENGTH_AT] === 0) zeroFee++;
  return { header: block.header, operations: block.operations, zeroFee };
}

/**
 * Where an encoded operation's fee length byte is (optype u16, signer u32, n_operation u32, then
 * the fee as `u8 length || bytes`): a length of 0 is a zero fee (niopsp), read without decoding.
 */
const FEE_LENGTH_AT = 10;

function rangeOf(query: HistoryQuery): HistoryRange {
  const { max, cursor, fromBlock } = query;
  if (!Number.isInteger(max) || max < 1 || max > MAX_HISTORY_PAGE) {
    throw new LedgerError(
      ErrorCode.INVALID_DATA,
      'OUT_OF_RANGE',
      `max must be an integer from 1 to ${MAX_HISTORY_PAGE}, not ${String(max)}`,
      { param: 'max' },
    );
  }
  if (fromBlock !== undefined && (!Number.isInteger(fromBlock) || fromBlock < 0)) {
    throw new LedgerError(
      ErrorCode.INVALID_DATA,
      'OUT_OF_RANGE',
      `from_block must be a block number (0 or more), not ${String(fromBlock)}`,
      { param: 'from_block' },
    );
  }
  const parsed = cursor === undefined ? undefined : decodeCursor(cursor);
  const ascending = parsed?.ascending ?? fromBlock !== undefined;
  return {
    max,
    ascending,
    fromBlock: fromBlock ?? 0,
    ...(parsed === undefined ? {} : { after: parsed.location }),
  };
}

/**
 * A cursor names the last operation of a page and the page's direction: `<height>.<index>` newest
 * first, `<height>.<index>+` oldest first. Plain text, so that a client may keep it in a log.
 */
function encodeCursor(location: OperationLocation, ascending: boolean): string {
  return `${location.height}.${location.index}${ascending ? '+' : ''}`;
}

const CURSOR = /^(\d{1,10})\.(\d{1,5})(\+?)$/;

function decodeCursor(cursor: string): { location: OperationLocation; ascending: boolean } {
  const match = CURSOR.exec(cursor);
  const height = match === null ? Number.NaN : Number(match[1]);
  const index = match === null ? Number.NaN : Number(match[2]);
  if (match === null || height > 0xffff_ffff || index > 0xffff) {
    throw new LedgerError(
      ErrorCode.INVALID_DATA,
      'BAD_CURSOR',
      `cursor ${JSON.stringify(cursor.slice(0, 40))} is not one a page returned (<block>.<index>, + when oldest first)`,
      { param: 'cursor' },
    );
  }
  return { location: { height, index }, ascending: match[3] === '+' };
}
