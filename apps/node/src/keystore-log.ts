import type { RefreshResult } from '@chain/keystore';
import type { Logger } from './logger';

/**
 * Every file that could not be loaded gets a warning naming it and why; files made elsewhere and
 * not resolved yet are counted, since each is tried whenever an unknown wallet is asked for.
 */
export function logKeyDirectoryScan(
  log: Logger,
  scan: Pick<RefreshResult, 'invalid' | 'unresolved'>,
): void {
  for (const { file, problem } of scan.invalid) {
    log.warn({ file, reason: problem }, 'key file not loaded');
  }
  if (scan.unresolved.length > 0) {
    log.info(
      { files: scan.unresolved.map((entry) => entry.file) },
      'key files made elsewhere: each becomes a wallet the first time its chain address is used with its passphrase',
    );
  }
}
