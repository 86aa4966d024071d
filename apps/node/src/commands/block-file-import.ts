/**
 * `chain-node import`: a block file into a stopped node's chain, through the chain's own import
 * (signatures, state root, every rule, as for a block from a peer), a few blocks in flight as range
 * sync keeps them, so that their signatures are checked on the verifier threads while the block
 * before applies. The whole file's framing is checked first, so a damaged file imports nothing;
 * blocks the chain already holds are skipped (an interrupted import resumes).
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { bytesToHex, equalBytes } from '@chain/crypto';
import type { Chain, ImportRun } from '@chain/ledger';
import {
  BlockFileError,
  type BlockFileHeader,
  BlockFileReader,
  type FileBlock,
} from './block-file';
import {
  CommandFailure,
  type DatadirArgs,
  message,
  openOfflineChain,
  resolveDatadir,
} from './offline-chain';
import { createProgress } from './progress';

export interface ImportArgs extends DatadirArgs {
  file: string;
}

export interface ImportSummary {
  imported: number;
  skipped: number;
  tip: number;
  tipHash: string;
  interrupted: boolean;
  /** Wall time from the first block imported to the last on disk (the file check before it apart). */
  importSeconds: number;
}

/** Read chunk size: a few blocks per read. */
const READ_CHUNK_BYTES = 1024 * 1024;

export interface ImportControl {
  /** Set (e.g. by SIGINT) to stop after the blocks in flight; the next run resumes. */
  stopped: boolean;
}

export async function importBlocks(
  args: ImportArgs,
  control: ImportControl,
): Promise<ImportSummary> {
  const header = await checkFile(args.file, control);
  const options = resolveDatadir(args);
  const chain = await openOfflineChain(options, 'import', { create: true });
  try {
    if (!equalBytes(header.genesisHash, chain.genesisHash)) {
      throw new CommandFailure(
        `${args.file} holds blocks of another network (genesis ${bytesToHex(header.genesisHash)}); ` +
          `this node's genesis is ${bytesToHex(chain.genesisHash)} (give --genesis / --network of that network)`,
      );
    }
    return await importFrom(chain, args.file, header, control);
  } finally {
    await chain.close();
  }
}

/** Reads the whole file once, checking every frame: refuses a damaged file before any import. */
async function checkFile(file: string, control: ImportControl): Promise<BlockFileHeader> {
  const size = await fileSize(file);
  const reader = new BlockFileReader(readChunks(file));
  const progress = createProgress('check ', size, 'bytes');
  try {
    const header = await reader.header();
    let last = 0;
    for await (const block of reader.blocks()) {
      if (control.stopped)
        throw new CommandFailure('interrupted while checking the file: nothing was imported', 130);
      const end = block.offset + block.bytes.length + 8;
      progress.increment(end - last);
      last = end;
    }
    return header;
  } catch (error) {
    throw error instanceof CommandFailure ? error : damaged(file, error);
  } finally {
    progress.stop();
  }
}

async function importFrom(
  chain: Chain,
  file: string,
  header: BlockFileHeader,
  control: ImportControl,
): Promise<ImportSummary> {
  const startTip = chain.blockCount() - 1;
  const lastHeight = header.firstHeight + header.count - 1;
  if (header.firstHeight > startTip + 1) {
    throw new CommandFailure(
      `${file} starts at block ${header.firstHeight}, but this chain ends at block ${startTip}: ` +
        `import blocks ${startTip + 1}-${header.firstHeight - 1} first`,
    );
  }
  const toImport = Math.max(0, lastHeight - startTip);
  const progress = createProgress('import', toImport);
  // The file's blocks after the chain's tip, handed to the chain's import (importBlocks keeps a
  // window of them in flight); those it has not reported imported yet, oldest first.
  const handed: FileBlock[] = [];
  let skipped = 0;
  let startedAt: number | undefined;
  async function* blocksAfterTip(): AsyncGenerator<Uint8Array> {
    for await (const block of new BlockFileReader(readChunks(file)).blocks()) {
      if (block.height <= startTip) {
        await checkSame(chain, block);
        skipped++;
        continue;
      }
      if (control.stopped) return;
      startedAt ??= performance.now();
      handed.push(block);
      yield block.bytes;
    }
  }
  let run: ImportRun;
  try {
    run = await chain.importBlocks(blocksAfterTip(), {
      onImported: () => {
        handed.shift();
        progress.increment();
      },
    });
  } catch (error) {
    if (error instanceof CommandFailure) throw error;
    // Checked whole a moment ago: the file changed since.
    throw new CommandFailure(`${file} changed during the import: ${message(error)}`);
  } finally {
    progress.stop();
  }
  const tip = chain.blockCount() - 1;
  const tipHash = bytesToHex((await chain.blockHash(tip))!);
  if (run.refused !== undefined) {
    const block = handed[0]!;
    throw new CommandFailure(
      `block ${block.height} (frame at byte ${block.offset}) is invalid: ${message(run.refused.error)}; ` +
        `nothing after it was imported (this chain now ends at block ${tip}, ${tipHash})`,
    );
  }
  return {
    imported: run.imported,
    skipped,
    tip,
    tipHash,
    interrupted: control.stopped && tip < lastHeight,
    importSeconds: startedAt === undefined ? 0 : (performance.now() - startedAt) / 1000,
  };
}

/** A block of the file at a height the chain holds must be that very block (resume). */
async function checkSame(chain: Chain, block: FileBlock): Promise<void> {
  let hash: Uint8Array;
  try {
    hash = chain.inspectBlock(block.bytes).hash;
  } catch (error) {
    throw new CommandFailure(
      `block ${block.height} (frame at byte ${block.offset}) does not decode: ${message(error)}`,
    );
  }
  const ours = await chain.blockHash(block.height);
  if (ours === undefined || !equalBytes(hash, ours)) {
    throw new CommandFailure(
      `block ${block.height} of the file (frame at byte ${block.offset}) differs from block ${block.height} ` +
        'of this chain: the file is of another branch; import it into a data directory of its own',
    );
  }
}

function damaged(file: string, error: unknown): CommandFailure {
  if (error instanceof BlockFileError) {
    return new CommandFailure(`${file} is refused: ${error.message}; nothing was imported from it`);
  }
  return new CommandFailure(`cannot read ${file}: ${message(error)}`);
}

async function fileSize(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CommandFailure(
      code === 'ENOENT' ? `${file} does not exist` : `cannot read ${file}: ${message(error)}`,
      code === 'ENOENT' ? 2 : 1,
    );
  }
}

function readChunks(file: string): AsyncIterable<Uint8Array> {
  return createReadStream(file, { highWaterMark: READ_CHUNK_BYTES });
}
