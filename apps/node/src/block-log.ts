import type { Chain } from '@chain/ledger';
import type { P2PNode } from '@chain/p2p-libp2p';
import type { Logger } from './logger';

/**
 * A sync this many blocks or more behind its peers' highest block logs its progress (every few
 * seconds, logSyncProgress) instead of one record per block: thousands of records a second would
 * bury the rest of the log and cost the sync a share of its speed.
 */
export const SYNC_BLOCK_LOG_GAP = 32;

/**
 * Info level: one short record per block, stamped when this node produced or imported it (the
 * network lab reads these to measure propagation without debug logging's volume). Returns the
 * unsubscribe.
 */
export function logBlocks(
  chain: Chain,
  network: Pick<P2PNode, 'syncProgress'>,
  log: Logger,
): () => void {
  return chain.onBlock((block, origin) => {
    if (origin === 'imported' && isFarBehind(network)) return;
    log.info({ block: block.block, operations: block.operations, origin }, 'block');
  });
}

function isFarBehind(network: Pick<P2PNode, 'syncProgress'>): boolean {
  const progress = network.syncProgress();
  return progress.syncing && progress.highestBlock - progress.currentBlock >= SYNC_BLOCK_LOG_GAP;
}
