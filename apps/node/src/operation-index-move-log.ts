import type { Logger } from './logger';

/**
 * Logs the one-time move of an older data directory's operation index into signer order at start
 * (@chain/ledger's onOperationIndexMove): its start, then where it stands every `intervalMs`, then
 * its end.
 */
export function operationIndexMoveLogger(
  log: Logger,
  intervalMs = 2000,
  now: () => number = Date.now,
): (moved: number, total: number | undefined) => void {
  let last = 0;
  let started = 0;
  return (moved, total) => {
    const at = now();
    if (moved === 0) {
      started = at;
      log.info(
        { operations: total },
        'moving the operation index into signer order (once, for a data directory of an older layout)',
      );
    } else if (moved === total) {
      log.info({ operations: moved, ms: at - started }, 'operation index moved');
    } else if (at - last >= intervalMs) {
      log.info({ moved, operations: total }, 'moving the operation index');
    } else return;
    last = at;
  };
}
