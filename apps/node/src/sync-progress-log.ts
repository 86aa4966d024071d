import type { SyncProgress } from '@chain/p2p-libp2p';
import type { Logger } from './logger';

interface SyncProgressReport {
  current: number;
  highest: number;
  percent: number;
  blocksPerSecond: number;
  /** Estimated seconds until synced; undefined while no progress has been seen. */
  secondsLeft: number | undefined;
}

/** Where a sync stands and how fast it goes, between two samples of the sync progress. */
export function syncProgressReport(
  previous: { block: number; at: number },
  progress: SyncProgress,
  now: number,
): SyncProgressReport {
  const elapsedSeconds = Math.max((now - previous.at) / 1000, 1e-3);
  const blocksPerSecond = Math.max(0, progress.currentBlock - previous.block) / elapsedSeconds;
  const remaining = Math.max(0, progress.highestBlock - progress.currentBlock);
  const span = Math.max(1, progress.highestBlock - progress.startingBlock);
  const done = Math.max(0, progress.currentBlock - progress.startingBlock);
  return {
    current: progress.currentBlock,
    highest: progress.highestBlock,
    percent: Math.min(100, Math.floor((done / span) * 1000) / 10),
    blocksPerSecond: Math.round(blocksPerSecond * 10) / 10,
    secondsLeft: blocksPerSecond > 0 ? Math.ceil(remaining / blocksPerSecond) : undefined,
  };
}

/**
 * Logs sync progress (blocks, rate, time left) every `intervalMs` while the node is syncing, and once
 * when it has caught up; returns a function that stops it.
 */
export function logSyncProgress(
  source: { syncProgress(): SyncProgress },
  log: Logger,
  intervalMs = 2000,
): () => void {
  let previous = { block: source.syncProgress().currentBlock, at: Date.now() };
  let wasSyncing = false;
  const timer = setInterval(() => {
    const progress = source.syncProgress();
    const now = Date.now();
    if (progress.syncing) {
      const report = syncProgressReport(previous, progress, now);
      log.info(
        report,
        `syncing: block ${report.current} of ${report.highest} (${report.percent}%)`,
      );
    } else if (wasSyncing) {
      log.info({ block: progress.currentBlock }, 'synced');
    }
    wasSyncing = progress.syncing;
    previous = { block: progress.currentBlock, at: now };
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
