import type { Logger } from './logger';

/**
 * Logs a pass over the whole state at start (the migration of an older data directory, or
 * --verify-state): its start, then where it stands every `intervalMs`, then its end.
 */
export function stateScanLogger(
  log: Logger,
  intervalMs = 2000,
  now: () => number = Date.now,
): (done: number, total: number) => void {
  let last = 0;
  return (done, total) => {
    const at = now();
    if (done === 0)
      log.info({ accounts: total }, 'reading the whole state (one pass over every account)');
    else if (done >= total) log.info({ accounts: total }, 'state read and checked');
    else if (at - last >= intervalMs) {
      log.info(
        { done, accounts: total, percent: Math.floor((done / total) * 1000) / 10 },
        'reading the state',
      );
    } else return;
    last = at;
  };
}
