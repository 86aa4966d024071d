import { readFile } from 'node:fs/promises';
import { ChainError, ErrorCode, normalizeAddress } from '@chain/crypto';
import type { KeyStore } from '@chain/keystore';
import type { Chain } from '@chain/ledger';
import type { Logger } from './logger';
import type { NodeOptions } from './options';
import type { ProducerKeys } from './producer-keys';
import { LOCKED_PRODUCER_WARNING } from './producer-wallets';

/** The environment variable that may hold the mine wallets' passphrase (instead of a file). */
export const MINE_PASSPHRASE_ENV = 'CHAIN_MINE_PASSPHRASE';

/**
 * `--mine-wallet <address>` (repeatable): key-store wallets whose keys sign blocks, unlocked at start
 * with the passphrase of `--mine-passphrase-file` (first line) or CHAIN_MINE_PASSPHRASE. This is how a
 * producer named in the genesis, or a TOP node's mine wallet after blockchainStart, signs again after a
 * restart. A wallet not (yet) in the producer set is loaded anyway and signs once it is. A locked
 * wallet is not loaded (a locked wallet signs nothing): unlockWallet loads it while the node runs.
 */
export async function loadMineWallets(
  options: Pick<NodeOptions, 'mineWallets' | 'minePassphraseFile'>,
  chain: Chain,
  keystore: KeyStore,
  producerKeys: ProducerKeys,
  log: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  if (options.mineWallets.length === 0) return 0;
  const passphrase = await minePassphrase(options, env);
  let loaded = 0;
  for (const given of options.mineWallets) {
    const wallet = normalizeAddress(given, chain.prefix, 'mine-wallet');
    if (!(await keystore.has(wallet))) {
      throw new ChainError(
        ErrorCode.NOT_FOUND,
        'MINE_WALLET_NOT_IN_KEYSTORE',
        `--mine-wallet ${wallet} is not in this node's key store (import its key first)`,
        { param: 'mine-wallet' },
      );
    }
    if (await keystore.isLocked(wallet)) {
      log.warn({ wallet }, LOCKED_PRODUCER_WARNING);
      continue;
    }
    const key = await keystore.getPrivateKey(wallet, passphrase);
    try {
      producerKeys.add(wallet, key);
    } finally {
      key.fill(0);
    }
    loaded++;
    const account = chain.accountByAddress(wallet);
    const producing = account !== undefined && chain.producers().includes(account.number);
    log.info({ wallet, producer: producing }, 'mine wallet loaded');
  }
  return loaded;
}

async function minePassphrase(
  options: Pick<NodeOptions, 'minePassphraseFile'>,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  if (options.minePassphraseFile) {
    const text = await readFile(options.minePassphraseFile, 'utf8');
    return text.split(/\r?\n/)[0] ?? '';
  }
  const fromEnv = env[MINE_PASSPHRASE_ENV];
  if (fromEnv !== undefined) return fromEnv;
  throw new ChainError(
    ErrorCode.INVALID_DATA,
    'NO_MINE_PASSPHRASE',
    `--mine-wallet needs the wallets' passphrase: --mine-passphrase-file <file> or ${MINE_PASSPHRASE_ENV}`,
    { param: 'mine-passphrase-file' },
  );
}
