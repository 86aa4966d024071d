/**
 * Every operation touching a key-store wallet (issue 41, item 3): the `listsinceblock`-like read
 * (getKeyStoreOperations) and the one push subscription for all key-store wallets
 * (keyStoreOperations) share this. Which operations touch a key-store wallet is decided per block
 * without loading the key store: the block's operations name their parties (signer, senders,
 * receivers), the distinct addresses of the operations at hand are asked of the key store's
 * index in one read (`hasMany`, one LevelDB getMany: a lookup per address cost about as much as
 * presenting the operation), and each operation is kept with the key-store wallets it names.
 */
import type { Chain, OperationObject } from '@chain/ledger';

/** The key store as this module uses it: its index's lookup by address only. */
export interface KeyStoreLookup {
  hasMany(addresses: readonly string[]): Promise<boolean[]>;
}

/** An operation with the key-store wallets it touches (the extension field `wallets`). */
export type KeyStoreOperation = OperationObject & { wallets: string[] };

interface Party {
  account?: unknown;
}

/** The addresses an operation object names as its parties (some types omit the lists). */
function partiesOf(operation: OperationObject): string[] {
  const out = [operation.signer_account];
  for (const list of [operation.senders, operation.receivers] as (Party[] | undefined)[]) {
    if (!Array.isArray(list)) continue;
    for (const party of list) {
      if (typeof party.account === 'string' && !out.includes(party.account))
        out.push(party.account);
    }
  }
  return out;
}

/**
 * The operations of `operations` (one block's, in order) that touch a key-store wallet, each with
 * those wallets: one key-store lookup per distinct address of the block.
 */
export async function keyStoreOperationsOf(
  operations: readonly OperationObject[],
  keystore: KeyStoreLookup,
): Promise<KeyStoreOperation[]> {
  const parties = operations.map(partiesOf);
  const distinct = [...new Set(parties.flat())];
  const held = await keystore.hasMany(distinct);
  const inStore = new Set(distinct.filter((_, i) => held[i]));
  const out: KeyStoreOperation[] = [];
  operations.forEach((operation, i) => {
    const wallets = parties[i]!.filter((address) => inStore.has(address));
    if (wallets.length > 0) out.push({ ...operation, wallets });
  });
  return out;
}

/** getKeyStoreOperations: at most this many blocks are read for one page (a quiet stretch). */
export const MAX_BLOCKS_PER_PAGE = 1000;
/** The fewest operations of a block presented and looked up at once. */
const MIN_SLICE = 100;

export interface KeyStorePage {
  operations: (KeyStoreOperation & { confirmations: number })[];
  /** Where the next page starts (`height.opblock`); null once the head was read. */
  cursor: string | null;
  /** The last block this page read to its end (the head when cursor is null). */
  toBlock: number;
}

/** A cursor of getKeyStoreOperations: the block and the position in it the next page starts at. */
export function parseKeyStoreCursor(cursor: string): { height: number; index: number } | undefined {
  const match = /^(\d{1,10})\.(\d{1,6})$/.exec(cursor);
  if (match === null) return undefined;
  return { height: Number(match[1]), index: Number(match[2]) };
}

/**
 * A page of the key-store wallets' operations from block `height`, position `index` on, oldest
 * first: blocks are read in order until `max` operations are found, the head is passed, or
 * MAX_BLOCKS_PER_PAGE blocks were read (the cursor then goes on from the next block). A block is
 * presented and looked up a slice at a time (the operations still wanted, at least MIN_SLICE), so
 * a page of a full block costs its page, not the whole block.
 *
 * The page is one chain (Chain.readOneChain: read again if a rollback ran beside it), as it is
 * when the page ends: blocks may come meanwhile, so the head is read again before each slice and
 * at the end, and confirmations count from the head at the end.
 */
export function keyStorePage(
  chain: Pick<Chain, 'blockCount' | 'blockOperations' | 'readOneChain'>,
  keystore: KeyStoreLookup,
  start: { height: number; index: number },
  max: number,
): Promise<KeyStorePage> {
  return chain.readOneChain(() => readKeyStorePage(chain, keystore, start, max));
}

async function readKeyStorePage(
  chain: Pick<Chain, 'blockCount' | 'blockOperations'>,
  keystore: KeyStoreLookup,
  start: { height: number; index: number },
  max: number,
): Promise<KeyStorePage> {
  const operations: KeyStoreOperation[] = [];
  const head = () => chain.blockCount() - 1;
  const page = (next: { height: number; index: number }): KeyStorePage => {
    const top = head();
    const passed = next.height > top;
    return {
      operations: operations
        .filter((op) => op.block <= top)
        .map((op) => ({ ...op, confirmations: top - op.block + 1 })),
      cursor: passed ? null : `${next.height}.${next.index}`,
      toBlock: passed ? top : next.height - 1,
    };
  };
  let height = Math.max(start.height, 1);
  let index = start.height >= 1 ? start.index : 0;
  const last = Math.min(head(), height + MAX_BLOCKS_PER_PAGE - 1);
  for (; height <= last; height++, index = 0) {
    for (let from = index; ; ) {
      if (height > head()) return page({ height, index: from });
      const size = Math.max(max - operations.length, MIN_SLICE);
      const slice = await chain.blockOperations(height, { from, to: from + size });
      for (const operation of await keyStoreOperationsOf(slice, keystore)) {
        if (operations.length === max) return page({ height, index: operation.opblock });
        operations.push(operation);
      }
      if (slice.length < size) break;
      from += size;
    }
  }
  return page({ height, index: 0 });
}
