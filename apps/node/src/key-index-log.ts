import type { IndexBuildProgress } from '@chain/keystore';
import type { Logger } from './logger';

/**
 * Logs the key store's one-time index build (a key directory written before the index, or an
 * index deleted or older than the directory): its start, where it stands every `intervalMs`, and
 * its end. The node answers meanwhile; nodeStatus and GET /health say how far it is.
 */
export function keyIndexLogger(
  log: Logger,
  intervalMs = 5000,
  now: () => number = Date.now,
): (progress: IndexBuildProgress) => void {
  let last: number | undefined;
  return ({ done, total, finished, error }) => {
    const at = now();
    if (error !== undefined) {
      log.error(
        { done, files: total, problem: error },
        'key store index build stopped (the next start resumes it; calls still find every wallet by its file)',
      );
    } else if (finished) {
      log.info({ files: total }, 'key store indexed');
    } else if (last === undefined) {
      log.info(
        { files: total },
        'indexing the key store (once, in the background; the node answers meanwhile)',
      );
    } else if (at - last >= intervalMs) {
      const percent = total === 0 ? 100 : Math.floor((done / total) * 1000) / 10;
      log.info({ done, files: total, percent }, 'indexing the key store');
    } else return;
    last = at;
  };
}
