/** `chain-node export`: the blocks of a stopped node's chain into a block file (block-file.ts). */
import { open, rename, rm } from 'node:fs/promises';
import { bytesToHex } from '@chain/crypto';
import { encodeFrame, encodeHeader } from './block-file';
import { BufferedWriter } from './framed-file';
import {
  CommandFailure,
  type DatadirArgs,
  openOfflineChain,
  refuseToOverwrite,
  resolveDatadir,
} from './offline-chain';
import { createProgress } from './progress';

export interface ExportArgs extends DatadirArgs {
  file: string;
  from: number;
  to?: number;
  force: boolean;
}

interface ExportSummary {
  file: string;
  from: number;
  to: number;
  bytes: number;
  tipHash: string;
}

export async function exportBlocks(args: ExportArgs): Promise<ExportSummary> {
  await refuseToOverwrite(args.file, args.force);
  const options = resolveDatadir(args);
  const chain = await openOfflineChain(options, 'export');
  try {
    const tip = chain.blockCount() - 1;
    const { from } = args;
    const to = args.to ?? tip;
    checkRange(from, to, tip);
    // Written beside the target and renamed at the end: an interrupted export leaves no file
    // that could be taken for a whole one.
    const partial = `${args.file}.partial`;
    const handle = await open(partial, 'w', 0o644);
    const writer = new BufferedWriter(handle);
    const progress = createProgress('export', to - from + 1);
    try {
      await writer.write(
        encodeHeader({ genesisHash: chain.genesisHash, firstHeight: from, count: to - from + 1 }),
      );
      for (let height = from; height <= to; height++) {
        const block = await chain.getBlockBytes(height);
        if (block === undefined)
          throw new CommandFailure(`block ${height} is missing from the chain database`);
        await writer.write(encodeFrame(block));
        progress.increment();
      }
      await writer.flush();
      await handle.sync();
    } catch (error) {
      await handle.close();
      await rm(partial, { force: true });
      throw error;
    } finally {
      progress.stop();
    }
    await handle.close();
    await rename(partial, args.file);
    const tipHash = bytesToHex((await chain.blockHash(to))!);
    return { file: args.file, from, to, bytes: writer.written, tipHash };
  } finally {
    await chain.close();
  }
}

function checkRange(from: number, to: number, tip: number): void {
  if (!Number.isInteger(from) || from < 1) {
    throw new CommandFailure(
      `--from must be a block number >= 1, got ${from} (block 0 is made from the genesis file by every node)`,
      2,
    );
  }
  if (tip < 1)
    throw new CommandFailure('the chain holds no block after the genesis block: nothing to export');
  if (!Number.isInteger(to) || to < from || to > tip) {
    throw new CommandFailure(
      `--to must be a block number from --from (${from}) to the tip (${tip}), got ${to}`,
      2,
    );
  }
}
