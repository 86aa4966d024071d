/** The key index's stored records (values of `f!` and `m`) and its creation-order keys. */

/** 2: a wallet's record (`w!`) holds its file's key identity and creation time beside its name. */
export const INDEX_VERSION = 2;

export interface FileRecord {
  kind: 'wallet' | 'unresolved' | 'invalid';
  createdAt: string;
  stamp: string;
  /** The Ethereum-style address, when the file says (wallet: always). */
  id?: string;
  address?: string;
  problem?: string;
}

/**
 * The value of `w!<address>`: what lockWallet and a page's `after` need of a wallet in one read
 * (the file's record is a second random read of the index: 0.7 ms on a million wallets here).
 */
export interface WalletRecord {
  name: string;
  id: string;
  createdAt: string;
}

export interface IndexMeta {
  version: number;
  wallets: number;
  files: number;
  /** The directory's mtime when the last complete scan started, null before one completed. */
  scannedDirMtimeNs: string | null;
  /**
   * The directory's stamp (size, mtime, ctime, inode) when the last complete pass started, if it
   * had settled by then and nothing changed it during the pass; null (or absent, in an index
   * written before it) otherwise, and after any write of ours. The same stamp at the next pass:
   * no name came or went since, and the pass has nothing to list.
   */
  passedDirStamp?: string | null;
}

export function emptyMeta(): IndexMeta {
  return {
    version: INDEX_VERSION,
    wallets: 0,
    files: 0,
    scannedDirMtimeNs: null,
    passedDirStamp: null,
  };
}

/** Creation order: 20 decimal digits of nanoseconds (sorts as numbers do), then the file name. */
export function orderKey(createdAt: bigint, name: string): string {
  return `o!${createdAt.toString().padStart(20, '0')}!${name}`;
}

export function compareOrder(aTime: bigint, aName: string, bTime: bigint, bName: string): number {
  return aTime === bTime ? compareStrings(aName, bName) : aTime < bTime ? -1 : 1;
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
