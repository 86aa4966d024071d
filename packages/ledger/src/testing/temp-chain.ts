import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  addressFromPublicKey,
  decodeAddress,
  getPublicKey,
  sha256,
  utf8ToBytes,
} from '@chain/crypto';
import { type Chain, type ChainOptions, createChain } from '../chain/chain';
import { createDevGenesis, DEV_PRIVATE_KEY, type Genesis } from '../genesis';

/** A deterministic test key (sha256 of a label), its public key and address on the dev prefix. */
export function testWallet(label: string, prefix = 'CH') {
  const privateKey = sha256(utf8ToBytes(`ledger test wallet ${label}`));
  const publicKey = getPublicKey(privateKey);
  return { privateKey, publicKey, address: addressFromPublicKey(prefix, publicKey) };
}

export const devWallet = (() => {
  const publicKey = getPublicKey(DEV_PRIVATE_KEY);
  return {
    privateKey: DEV_PRIVATE_KEY,
    publicKey,
    address: addressFromPublicKey('CH', publicKey),
  };
})();

export async function makeTempDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-test-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Opens a chain on a fresh temp dir; `cleanup()` closes it and removes the dir. */
export async function openTempChain(
  overrides: Partial<ChainOptions> & { genesis?: Genesis } = {},
): Promise<{ chain: Chain; dir: string; cleanup: () => Promise<void> }> {
  const { dir, remove } = await makeTempDir();
  const chain = createChain({ dataDir: dir, genesis: createDevGenesis(), ...overrides });
  await chain.open();
  return {
    chain,
    dir,
    cleanup: async () => {
      await chain.close();
      await remove();
    },
  };
}

export const COIN = 10n ** 18n;

/** A transfer body to an address (the sendTo form). */
export function transferTo(address: string, amount: bigint, payload = new Uint8Array(0)) {
  return {
    receiver: { hash160: decodeAddress(address).hash160 },
    amount,
    payloadType: 0,
    payload,
  };
}

/** Funds and activates a wallet from the dev account, in one block. */
export async function fundAndActivate(
  chain: Chain,
  wallet: { address: string; privateKey: Uint8Array },
  amount: bigint,
): Promise<void> {
  await chain.signAndSubmit({
    optype: 2,
    signer: devWallet.address,
    privateKey: devWallet.privateKey,
    body: transferTo(wallet.address, amount),
  });
  await chain.signAndSubmit({
    optype: 5,
    signer: wallet.address,
    privateKey: wallet.privateKey,
    body: {},
  });
  await chain.produceBlock(devWallet.privateKey);
}
