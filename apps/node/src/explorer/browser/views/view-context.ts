/** What a view gets from the router, and the chain status texts several views share. */
import {
  type BlockInfo,
  type BlockSync,
  isNotAvailable,
  type NodeStatus,
  type Outcome,
  resultOf,
} from '../chain-data';

export interface ViewContext {
  /** True once the user has gone to another view: stop touching the DOM. */
  stale(): boolean;
  /** Called when the chain may have changed, while this view is shown and live updates are on. */
  onChainChange(refresh: () => Promise<void>): void;
  /** Called with the blocks added to the chain (oldest first) while this view is shown. */
  onNewBlocks(listener: (blocks: BlockInfo[]) => void): void;
  /** Called when the user goes to another view (at once if that has already happened). */
  onLeave(cleanup: () => void): void;
}

export function syncText(outcome: Outcome<BlockSync>): string {
  if (isNotAvailable(outcome)) return 'not available on this node yet';
  const sync = resultOf(outcome);
  if (sync.currentBlock >= sync.highestBlock) return `in sync at block ${sync.currentBlock}`;
  return `syncing: block ${sync.currentBlock} of ${sync.highestBlock} (${syncPercent(sync)}%)`;
}

export function syncPercent(sync: BlockSync): number {
  const span = sync.highestBlock - sync.startingBlock;
  if (span <= 0) return 100;
  return Math.floor(((sync.currentBlock - sync.startingBlock) / span) * 100);
}

export function peersText(outcome: Outcome<NodeStatus>): string {
  if (isNotAvailable(outcome)) return 'not available on this node yet';
  const node = resultOf(outcome);
  return String(node.netstats?.active ?? 0);
}
