/** `chain-node snapshot export` and `snapshot import` (snapshot-file.ts, Chain.restoreSnapshot). */
import { open, rename, rm, stat } from 'node:fs/promises';
import { bytesToHex, equalBytes } from '@chain/crypto';
import { CHUNK_RECORDS, type ChainSnapshot, type RestorePhase } from '@chain/ledger';
import { BufferedWriter, FramedFileError } from './framed-file';
import {
  CommandFailure,
  type DatadirArgs,
  datadirFailure,
  message,
  openOfflineChain,
  refuseToOverwrite,
  resolveDatadir,
} from './offline-chain';
import { createProgress, type Progress } from './progress';
import {
  encodeBlockFrame,
  encodeChunkFrame,
  encodeHeaderFrame,
  encodeSnapshotHeader,
  readSnapshotHeader,
  SNAPSHOT_HEADER_BYTES,
  SnapshotFileSource,
} from './snapshot-file';

export interface SnapshotExportArgs extends DatadirArgs {
  file: string;
  force: boolean;
  /** The height of the state to export; the head when absent. */
  at?: number;
}

export interface SnapshotImportArgs extends DatadirArgs {
  file: string;
}

interface SnapshotSummary {
  file: string;
  height: number;
  hash: string;
  records: number;
  bytes: number;
}

export async function exportSnapshot(args: SnapshotExportArgs): Promise<SnapshotSummary> {
  await refuseToOverwrite(args.file, args.force);
  if (args.at !== undefined && (!Number.isInteger(args.at) || args.at < 0)) {
    throw new CommandFailure(`--at ${args.at} is not a block height`, 2);
  }
  const chain = await openOfflineChain(resolveDatadir(args), 'snapshot export');
  let snapshot: ChainSnapshot;
  try {
    // Before the file is opened: a height the chain cannot give leaves nothing behind.
    snapshot = args.at === undefined ? chain.snapshot() : await chain.snapshotAt(args.at);
  } catch (error) {
    await chain.close();
    throw new CommandFailure(message(error));
  }
  // Written beside the target and renamed at the end: an interrupted export leaves no file that
  // could be taken for a whole one.
  const partial = `${args.file}.partial`;
  const handle = await open(partial, 'w', 0o644);
  try {
    const writer = new BufferedWriter(handle);
    // The header, whose counts are known at the end, is written over this placeholder then.
    await writer.write(new Uint8Array(SNAPSHOT_HEADER_BYTES));
    const headers = createProgress('headers', snapshot.height);
    for await (const header of snapshot.headers()) {
      await writer.write(encodeHeaderFrame(header));
      headers.increment();
    }
    headers.stop();
    await writer.write(encodeBlockFrame(await snapshot.block()));
    const state = createProgress('state', snapshot.accounts, 'accounts');
    let records = 0;
    let chunks = 0;
    let chunk: Uint8Array[] = [];
    for await (const batch of snapshot.records()) {
      for (const record of batch) {
        chunk.push(record);
        if (chunk.length === CHUNK_RECORDS) {
          await writer.write(encodeChunkFrame(chunk));
          chunks++;
          chunk = [];
        }
      }
      // The bar counts accounts (known ahead); the space entries after them are not counted.
      state.increment(
        Math.min(records + batch.length, snapshot.accounts) - Math.min(records, snapshot.accounts),
      );
      records += batch.length;
    }
    if (chunk.length > 0) {
      await writer.write(encodeChunkFrame(chunk));
      chunks++;
    }
    state.stop();
    await writer.flush();
    const header = encodeSnapshotHeader({
      genesisHash: snapshot.genesisHash,
      height: snapshot.height,
      blockHash: snapshot.hash,
      records,
      chunks,
    });
    await handle.write(header, 0, header.length, 0);
    await handle.sync();
    const { size } = await handle.stat();
    await handle.close();
    await rename(partial, args.file);
    return {
      file: args.file,
      height: snapshot.height,
      hash: bytesToHex(snapshot.hash),
      records,
      bytes: size,
    };
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(partial, { force: true });
    throw error;
  } finally {
    await chain.close();
  }
}

export async function importSnapshot(args: SnapshotImportArgs): Promise<SnapshotSummary> {
  const options = resolveDatadir(args);
  const [{ createChain }, { loadGenesis }, { createNodeRegistry }] = await Promise.all([
    import('@chain/ledger'),
    import('../genesis-file'),
    import('../registry'),
  ]);
  const header = await fileFailure(() => readSnapshotHeader(args.file));
  const chain = createChain({
    dataDir: options.datadir,
    genesis: await loadGenesis(options),
    registry: createNodeRegistry(),
  });
  if (!equalBytes(header.genesisHash, chain.genesisHash)) {
    throw new CommandFailure(
      `${args.file} is a snapshot of another chain (genesis ${bytesToHex(header.genesisHash)}, this node's is ${bytesToHex(chain.genesisHash)})`,
    );
  }
  const source = new SnapshotFileSource(args.file, header);
  const bars = new PhaseBars(header);
  try {
    const restored = await fileFailure(() =>
      chain.restoreSnapshot(source, (phase, done) => bars.at(phase, done)),
    );
    const { size } = await stat(args.file);
    return {
      file: args.file,
      height: restored.height,
      hash: bytesToHex(restored.hash),
      records: header.records,
      bytes: size,
    };
  } catch (error) {
    if (error instanceof CommandFailure) throw error;
    throw datadirFailure(error, options.datadir, 'snapshot import');
  } finally {
    bars.stop();
  }
}

/** One progress bar per phase of a restore: headers, the state's check, its write. */
class PhaseBars {
  private phase: RestorePhase | undefined;
  private bar: Progress | undefined;
  private done = 0;

  constructor(private readonly header: { height: number; records: number }) {}

  at(phase: RestorePhase, done: number): void {
    if (phase !== this.phase) {
      this.bar?.stop();
      this.phase = phase;
      this.done = 0;
      const total = phase === 'headers' ? this.header.height : this.header.records;
      const label = phase === 'headers' ? 'headers' : phase === 'state' ? 'check' : 'write';
      this.bar = createProgress(label, total, phase === 'headers' ? 'headers' : 'entries');
    }
    this.bar?.increment(done - this.done);
    this.done = done;
  }

  stop(): void {
    this.bar?.stop();
  }
}

/** A damaged or truncated file said as where it is damaged, without a stack trace. */
async function fileFailure<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof FramedFileError) throw new CommandFailure(`refused: ${error.message}`);
    if ((error as { code?: string }).code === 'ENOENT') {
      throw new CommandFailure(`cannot read the snapshot file: ${message(error)}`, 2);
    }
    if ((error as { reason?: string }).reason !== undefined) {
      throw new CommandFailure(`refused: ${message(error)}`);
    }
    throw error;
  }
}
