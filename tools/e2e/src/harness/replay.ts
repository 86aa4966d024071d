import { rm } from 'node:fs/promises';
import { type ChainNode, createLogger, createNode } from 'chain-node';
import { makeDatadir } from './node-process';

/** A node opened in this process on a data directory, not producing blocks (mine: false). */
export async function openFollower(datadir: string): Promise<ChainNode> {
  const node = createNode(
    { datadir, rpcPort: 0, p2pPort: 0, mine: false, logLevel: 'silent' },
    createLogger('silent'),
  );
  await node.start();
  return node;
}

export interface ReplayComparison {
  blocks: number;
  accounts: number;
  /** Differences found (empty when the recovered chain equals its replay). */
  differences: string[];
}

/**
 * Replays every block of the chain stored in `datadir` into a fresh chain of the same genesis
 * (importBlock: full validation, state root checked per block) and compares the two: head hash,
 * state root and every account. The node that wrote `datadir` must be stopped.
 */
export async function compareWithReplay(datadir: string): Promise<ReplayComparison> {
  const recovered = await openFollower(datadir);
  const freshDir = await makeDatadir();
  const fresh = await openFollower(freshDir);
  const differences: string[] = [];
  try {
    const count = recovered.chain.blockCount();
    for (let height = 1; height < count; height++) {
      const bytes = await recovered.chain.getBlockBytes(height);
      if (bytes === undefined) {
        differences.push(`block ${height} of ${count} cannot be read`);
        break;
      }
      try {
        await fresh.chain.importBlock(bytes);
      } catch (error) {
        differences.push(`block ${height} does not replay: ${(error as Error).message}`);
        break;
      }
    }
    const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
    if (hex(fresh.chain.head().hash) !== hex(recovered.chain.head().hash)) {
      differences.push(
        `head ${hex(recovered.chain.head().hash)} replays to ${hex(fresh.chain.head().hash)}`,
      );
    }
    if (hex(fresh.chain.stateRoot()) !== hex(recovered.chain.stateRoot())) {
      differences.push('state roots differ');
    }
    let accounts = 0;
    for (; ; accounts++) {
      const mine = recovered.chain.accountByNumber(accounts);
      const replayed = fresh.chain.accountByNumber(accounts);
      if (mine === undefined && replayed === undefined) break;
      if (JSON.stringify(mine, jsonBytes) !== JSON.stringify(replayed, jsonBytes)) {
        differences.push(`account ${accounts} differs from its replay`);
      }
    }
    return { blocks: count, accounts, differences };
  } finally {
    await fresh.close();
    await recovered.close();
    await rm(freshDir, { recursive: true, force: true });
  }
}

function jsonBytes(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  if (typeof value === 'bigint') return value.toString();
  return value;
}
