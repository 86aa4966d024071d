/**
 * Driving a chain-node on the embedded dev network through its JSON-RPC: the dev wallet, funded
 * and activated sender wallets, receiver addresses, and the checks that what was acknowledged is
 * what was mined.
 */
import { randomBytes } from 'node:crypto';
import {
  addressFromHash160,
  addressFromPublicKey,
  encodePrivateKey,
  getPublicKey,
  randomPrivateKey,
} from '@chain/crypto';
import { DEV_PRIVATE_KEY } from '@chain/ledger';
import type { ChainClient } from '@chain/rpc-client';

/** The dev network's address prefix. */
export const DEV_PREFIX = 'CH';
/** The dev wallet's key store passphrase when the node is started without --dev-passphrase. */
export const DEV_PASSPHRASE = 'dev';

/** The prefunded dev wallet (the genesis producer). */
export function devWalletAddress(): string {
  return addressFromPublicKey(DEV_PREFIX, getPublicKey(DEV_PRIVATE_KEY));
}

/**
 * `count` distinct valid addresses that are not on chain: random 20-byte hashes with their
 * checksum (nobody holds their keys; a transfer to one creates its account).
 */
export function randomAddresses(count: number): string[] {
  const addresses = new Set<string>();
  while (addresses.size < count) addresses.add(addressFromHash160(DEV_PREFIX, randomBytes(20)));
  return [...addresses];
}

export async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until nothing is pending; resolves with the time (Date.now()) it saw 0. */
export async function waitUntilNothingPending(
  client: ChainClient,
  timeoutMs: number,
  pollMs = 20,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = await client.operations.getPendingCount();
    if (pending === 0) return Date.now();
    if (Date.now() > deadline) {
      throw new Error(`${pending} operations still pending after ${timeoutMs} ms`);
    }
    await sleep(pollMs);
  }
}

/**
 * Blocks per getBlockInfo batch of the check: the node decodes each block of a batch in one
 * event-loop stretch, and 100 blocks of 10,000 (after the ten-minute burst) held it 5.5 s, past
 * the client's 5-s timeout.
 */
const CHECK_BATCH_BLOCKS = 10;

/**
 * Operations in blocks fromHeight+1 .. toHeight (default: the head), read in batches of
 * getBlockInfo.
 */
export async function operationsMinedAfter(
  client: ChainClient,
  fromHeight: number,
  toHeight?: number,
): Promise<{ operations: number; blocks: number; head: number }> {
  const head = toHeight ?? (await client.block.getBlockCount()) - 1;
  let operations = 0;
  for (let start = fromHeight + 1; start <= head; start += CHECK_BATCH_BLOCKS) {
    const heights = Array.from(
      { length: Math.min(CHECK_BATCH_BLOCKS, head - start + 1) },
      (_, index) => start + index,
    );
    const infos = await client.batch(
      heights.map((block) => ({ method: 'getBlockInfo' as const, params: { block } })),
    );
    for (const info of infos) {
      if (info instanceof Error) throw info;
      operations += info.operations;
    }
  }
  return { operations, blocks: Math.max(0, head - fromHeight), head };
}

export interface SenderWallet {
  address: string;
  passphrase: string;
}

/**
 * `count` wallets in the node's key store, each funded with `coins` by the dev wallet and
 * activated on chain (only active wallets sign), every operation mined before this resolves.
 */
export async function createSenders(
  client: ChainClient,
  count: number,
  coins: string,
  passphrase = 'bench',
): Promise<SenderWallet[]> {
  const keys = Array.from({ length: count }, () => randomPrivateKey());
  const senders: SenderWallet[] = [];
  for (const key of keys) {
    const { wallet } = await client.wallet.inputPrivateKey({
      private: encodePrivateKey(key),
      passphrase,
    });
    senders.push({ address: wallet, passphrase });
  }
  await fundAndActivate(
    client,
    senders.map((sender, index) => ({ address: sender.address, privateKey: keys[index]! })),
    coins,
  );
  for (const key of keys) key.fill(0);
  return senders;
}

/** A wallet whose key the benchmark holds (it signs offline; the node never sees the key). */
export interface SignerKey {
  address: string;
  privateKey: Uint8Array;
}

/**
 * `count` fresh wallets kept out of the node's key store, funded with `coins` by the dev wallet
 * and activated on chain, every operation mined before this resolves.
 */
export async function createSignerKeys(
  client: ChainClient,
  count: number,
  coins: string,
): Promise<SignerKey[]> {
  const signers = Array.from({ length: count }, () => {
    const privateKey = randomPrivateKey();
    return { address: addressFromPublicKey(DEV_PREFIX, getPublicKey(privateKey)), privateKey };
  });
  await fundAndActivate(client, signers, coins);
  return signers;
}

/** The dev wallet funds each wallet with `coins`, then each activates; all mined. */
async function fundAndActivate(
  client: ChainClient,
  wallets: readonly SignerKey[],
  coins: string,
): Promise<void> {
  const dev = devWalletAddress();
  await Promise.all(
    wallets.map((wallet) =>
      client.operations.sendTo({
        sender: dev,
        passphrase: DEV_PASSPHRASE,
        receiver: wallet.address,
        amount: coins,
      }),
    ),
  );
  await waitUntilNothingPending(client, 30_000);
  await Promise.all(
    wallets.map((wallet) =>
      client.wallet.activeWallet({
        wallet: wallet.address,
        private: encodePrivateKey(wallet.privateKey),
      }),
    ),
  );
  await waitUntilNothingPending(client, 30_000);
}

/** n_operation of each wallet, in order. */
export async function nOperations(
  client: ChainClient,
  wallets: readonly string[],
): Promise<number[]> {
  const infos = await client.batch(
    wallets.map((wallet) => ({ method: 'getWalletInfo' as const, params: { wallet } })),
  );
  return infos.map((info) => {
    if (info instanceof Error) throw info;
    return info.n_operation;
  });
}

/**
 * A token the dev wallet creates (plain, the whole supply its own), then hands `amountEach` to each of
 * `wallets`; resolves with the token's address once all of it is mined.
 */
export async function createDevTokenFor(
  client: ChainClient,
  token: { name: string; symbol: string; totalAmount: string; decimal: number },
  wallets: readonly string[],
  amountEach: string,
): Promise<string> {
  const dev = devWalletAddress();
  const created = await client.token.createToken({
    wallet: dev,
    passphrase: DEV_PASSPHRASE,
    function: false,
    summary: `${token.name} (benchmark)`,
    ...token,
  });
  await waitUntilNothingPending(client, 30_000);
  await Promise.all(
    wallets.map((receiver) =>
      client.token.sendToken({
        sender: dev,
        passphrase: DEV_PASSPHRASE,
        receiver,
        amount: amountEach,
        token: created.token,
      }),
    ),
  );
  await waitUntilNothingPending(client, 30_000);
  return created.token;
}
