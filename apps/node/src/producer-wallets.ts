import type { KeyStore } from '@chain/keystore';
import type { Chain } from '@chain/ledger';
import type { Logger } from './logger';
import type { ProducerKeys } from './producer-keys';

/**
 * Block-signing keys live in memory only (ProducerKeys): a restart forgets the mine wallets that
 * blockchainStart unlocked. A producer wallet whose key file is in this node's key store is this
 * node's to sign for; until its key is loaded again, the network skips its turns (out of turn).
 *
 * To load it again while the node runs, call unlockWallet with the mine wallet and its passphrase:
 * when the wallet is in the producer set, its key joins the producer keys (`restoreProducerKey`).
 * To load it at every start, use `--mine-wallet` (mine-wallets.ts). blockchainStart cannot be
 * repeated (ALREADY_STARTED), and the passphrase is never stored.
 *
 * A locked wallet signs nothing, blocks included: lockWallet of a producer wallet takes its key out
 * of the producer keys until unlockWallet, and a wallet locked at start (the lock persists) is not
 * loaded, whether it is the dev wallet or a --mine-wallet.
 */
export const LOCKED_PRODUCER_WARNING =
  'producer wallet is locked: this node signs none of its blocks until unlockWallet with its passphrase';

async function unloadedProducerWallets(
  chain: Chain,
  keystore: KeyStore,
  producerKeys: ProducerKeys,
): Promise<string[]> {
  const loaded = new Set<number>();
  for (const key of producerKeys.keys()) {
    const account = chain.producerAccount(key);
    if (account !== undefined) loaded.add(account);
  }
  const candidates = chain
    .producers()
    .filter((account) => !loaded.has(account))
    .map((account) => chain.accountByNumber(account)?.address)
    .filter((address): address is string => address !== undefined);
  const held = await Promise.all(candidates.map((address) => keystore.has(address)));
  return candidates.filter((_, i) => held[i]);
}

/** Logs a warning at start naming the producer wallets of this key store whose key is not loaded. */
export async function warnUnloadedProducerWallets(
  chain: Chain,
  keystore: KeyStore,
  producerKeys: ProducerKeys,
  log: Logger,
): Promise<void> {
  const wallets = await unloadedProducerWallets(chain, keystore, producerKeys);
  if (wallets.length === 0) return;
  log.warn(
    { wallets },
    `block producer wallet(s) ${wallets.join(', ')} are in the key store but their key is not ` +
      'loaded, so this node does not sign their blocks: call unlockWallet with each mine wallet ' +
      'and its passphrase to load it again (or start with --mine-wallet)',
  );
}

/**
 * Warns again whenever the producer set changes: a blockchainStart signed offline (or on another
 * node) makes a wallet of this key store a producer without its key being loaded here, and the
 * network then waits out that wallet's turns. Returns the unsubscribe.
 */
export function watchUnloadedProducerWallets(
  chain: Chain,
  keystore: KeyStore,
  producerKeys: ProducerKeys,
  log: Logger,
): () => void {
  let producers = chain.producers().join();
  return chain.onBlock(() => {
    const now = chain.producers().join();
    if (now === producers) return;
    producers = now;
    warnUnloadedProducerWallets(chain, keystore, producerKeys, log).catch((err: unknown) => {
      // The key store closing under a block that arrived as the node stopped: nothing to warn of.
      log.debug({ err }, 'producer wallets not checked');
    });
  });
}

/** After lockWallet: the locked wallet's key, if it signed blocks here, signs no more. */
export async function dropLockedProducerKey(
  keystore: KeyStore,
  producerKeys: ProducerKeys,
  log: Logger,
  address: string,
): Promise<void> {
  // Most wallets produce no blocks: their lock costs no second look into the key store.
  if (!producerKeys.has(address)) return;
  if ((await keystore.isLocked(address)) && producerKeys.remove(address)) {
    log.warn({ wallet: address }, LOCKED_PRODUCER_WARNING);
  }
}

/**
 * After a successful unlockWallet: when the wallet is a block producer, its key joins this node's
 * producer keys. Returns whether it did.
 */
export async function restoreProducerKey(
  chain: Chain,
  keystore: KeyStore,
  producerKeys: ProducerKeys,
  log: Logger,
  address: string,
  passphrase: string,
): Promise<boolean> {
  const account = chain.accountByAddress(address);
  if (account === undefined || !chain.producers().includes(account.number)) return false;
  const privateKey = await keystore.getPrivateKey(address, passphrase);
  try {
    if (chain.producerAccount(privateKey) !== account.number) return false;
    producerKeys.add(address, privateKey);
    log.info({ wallet: address }, 'producer wallet key loaded: this node signs its blocks again');
    return true;
  } finally {
    privateKey.fill(0);
  }
}
