import { describe, expect, it } from 'vitest';
import { type KeyStoreRun, keyStoreFigures } from './keystore-scale';

const MB = 1024 * 1024;

function run(wallets: number, latency: number, overrides: Partial<KeyStoreRun> = {}): KeyStoreRun {
  return {
    wallets,
    buildRate: 1500,
    buildPeakBytes: 300 * MB,
    startupSec: 2,
    startPeakBytes: 150 * MB,
    mixedPeakBytes: 200 * MB,
    mixedAnonBytes: 150 * MB,
    mixedFileBytes: 50 * MB,
    latencyMs: {
      newWallet: latency,
      unlockWallet: latency,
      lockWallet: latency,
      dumpPrivateKey: latency,
      signMessage: latency,
      sendTo: latency,
      getKeyStoreCount: latency,
      getKeyStoreInfo: 20,
    },
    refreshSec: 1,
    indexBytesPerWallet: 400,
    crashRestartSec: 2,
    ...overrides,
  };
}

describe('keystore-scale figures', () => {
  it('holds the calls to 1.2x of the small store, the bounds as values', () => {
    const figures = keyStoreFigures(run(10, 10), run(1_000_000, 11.9));
    const byName = new Map(figures.map((figure) => [figure.name, figure]));
    const unlock = byName.get('unlockWallet median latency, 1,000,000 wallets')!;
    expect(unlock.ratio).toBeCloseTo(10 / 11.9);
    expect(unlock.pass).toBe(true);
    expect(byName.get('start-up to ready once indexed, 1,000,000 wallets')!.pass).toBe(true);
    expect(figures.every((figure) => figure.pass)).toBe(true);
  });

  it('fails a call 1.3x slower, a slow start or restart, a refresh over 2 s and RSS over 400 MB', () => {
    const slow = run(1_000_000, 13, {
      startupSec: 3.5,
      crashRestartSec: 3.2,
      refreshSec: 2.5,
      mixedPeakBytes: 450 * MB,
    });
    const failed = keyStoreFigures(run(10, 10), slow)
      .filter((figure) => !figure.pass)
      .map((figure) => figure.name.replace(/, 1,000,000 wallets$/, ''));
    expect(failed).toEqual([
      'start-up to ready once indexed',
      'peak RSS under newWallet + sendTo + getKeyStoreInfo',
      'start-up to ready after a newWallet and kill -9 (the wallet kept)',
      'walletRefresh after 1000 files copied in',
      'newWallet median latency',
      'unlockWallet median latency',
      'lockWallet median latency',
      'dumpPrivateKey median latency',
      'signMessage median latency',
      'sendTo median latency',
      'getKeyStoreCount median latency',
    ]);
  });
});
