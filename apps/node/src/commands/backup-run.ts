/**
 * `chain-node backup --to DIR`: a copy of a node's key store and chain database that a node can
 * start from (`chain-node start --datadir DIR`).
 *
 * - The key store is copied file by file, also while the node runs: the key store writes every file
 *   atomically (a temporary file renamed into place), so each copied file is whole; its temporary
 *   files and its index (`.index`, rebuilt from the files at the restored node's first start) are
 *   left out.
 * - The chain database is copied through one LevelDB iterator (a snapshot: the database at one
 *   instant) while this command holds the data directory's lock (@chain/ledger's copyChainStore).
 *   A running node holds that lock, so then the chain is not copied: the command says so and how to
 *   get it (stop the node for a moment, or let the restored node sync from its peers).
 * - The withdrawal references (`references`, sendTo/sendToken's `reference`) are copied the same
 *   way, through one iterator while this command holds their lock; unlike the chain they cannot be
 *   had from peers, and a restored node without them would pay a retried withdrawal again. A
 *   running node holds them too: then they are not copied, and the command says so.
 */
import { cp, mkdir, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { bytesToHex } from '@chain/crypto';
import { INDEX_DIR } from '@chain/keystore';
import { copyWithdrawalReferences, type ReferencesCopy } from '../references/references-copy';
import {
  CommandFailure,
  type DatadirArgs,
  datadirFailure,
  message,
  openOfflineChain,
  requireChainDatabase,
  resolveDatadir,
} from './offline-chain';

export interface BackupArgs extends DatadirArgs {
  to: string;
}

export interface BackupSummary {
  dir: string;
  keyFiles: number;
  /** Undefined when a running node held the chain database. */
  chain?: { entries: number; bytes: number; tip: number; tipHash: string };
  references: ReferencesCopy;
}

export async function backupNode(args: BackupArgs): Promise<BackupSummary> {
  const options = resolveDatadir(args);
  await requireChainDatabase(options.datadir);
  await requireEmptyTarget(args.to);
  await mkdir(args.to, { recursive: true, mode: 0o700 });
  const { copyChainStore } = await import('@chain/ledger');
  let chain: BackupSummary['chain'];
  try {
    const copy = await copyChainStore(options.datadir, args.to);
    // The copy is checked the way a node would open it: head record, blocks, state checksum.
    const copied = await openOfflineChain({ ...options, datadir: args.to }, 'backup');
    try {
      const tip = copied.blockCount() - 1;
      chain = { ...copy, tip, tipHash: bytesToHex((await copied.blockHash(tip))!) };
    } finally {
      await copied.close();
    }
  } catch (error) {
    if ((error as { reason?: unknown }).reason !== 'DATADIR_IN_USE') {
      throw error instanceof CommandFailure
        ? error
        : datadirFailure(error, options.datadir, 'backup');
    }
  }
  const keyFiles = await copyKeyStore(join(options.datadir, 'keystore'), join(args.to, 'keystore'));
  const references = await copyWithdrawalReferences(
    join(options.datadir, 'references'),
    join(args.to, 'references'),
  );
  return { dir: args.to, keyFiles, ...(chain ? { chain } : {}), references };
}

async function requireEmptyTarget(dir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new CommandFailure(`cannot use --to ${dir}: ${message(error)}`, 2);
  }
  if (entries.length > 0) {
    throw new CommandFailure(`--to ${dir} is not empty: give a new or empty directory`, 2);
  }
}

/** Copies the key files (not the key store's temporary files); how many wallets' files were copied. */
async function copyKeyStore(from: string, to: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(from);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  await cp(from, to, {
    recursive: true,
    // Nor its index: a running node writes it, so a copy of its files may not be consistent; the
    // restored node rebuilds it from the key files (locks are files of their own, `.locks/`).
    filter: (source) => !basename(source).startsWith('.tmp-') && basename(source) !== INDEX_DIR,
    // Never follow links out of the key store.
    dereference: false,
    preserveTimestamps: true,
  });
  return names.filter((name) => !name.startsWith('.')).length;
}
