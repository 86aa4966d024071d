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
  // A sync `gap` blocks behind stays far behind for the next gap - SYNC_BLOCK_LOG_GAP imports (the
  // peers' highest block only moves back when a peer leaves): asked once per that many blocks, not
  // per block (the question walks the peers).
  let farBehindFor = 0;
  return chain.onBlock((block, origin) => {
    if (origin === 'imported') {
      if (farBehindFor > 0) {
        farBehindFor--;
        return;
      }
      const gap = farBehindGap(network);
      if (gap !== undefined) {
        farBehindFor = gap - SYNC_BLOCK_LOG_GAP;
        return;
      }
    }
    log.info({ block: block.block, operations: block.operations, origin }, 'block');
  });
}

/** How far behind its peers' highest block a sync is, when that is SYNC_BLOCK_LOG_GAP or more. */
function farBehindGap(network: Pick<P2PNode, 'syncProgress'>): number | undefined {
  const progress = network.syncProgress();
  const gap = progress.highestBlock - progress.currentBlock;
  return progress.syncing && gap >= SYNC_BLOCK_LOG_GAP ? gap : undefined;
}
