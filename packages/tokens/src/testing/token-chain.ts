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
import {
  type Chain,
  createChain,
  createDevGenesis,
  createRegistry,
  DEV_PRIVATE_KEY,
  type OperationObject,
} from '@chain/ledger';
import type { AdminTokenBody, AdminTokenMethod } from '../operation/admin-token';
import { ADMIN_TOKEN_SUBTYPES } from '../operation/admin-token';
import { CREATE_TOKEN_OPTYPE, SEND_TOKEN_SUBTYPE, TOKEN_OPTYPE } from '../operation/common';
import type { CreateTokenBody } from '../operation/create-token';
import { registerTokens } from '../register';

/** Test-only helpers: a real chain with the token types on a temp dir, wallets, and token calls. */

export interface Wallet {
  privateKey: Uint8Array;
  address: string;
}

export const COIN = 10n ** 18n;

/** A deterministic key (sha256 of a label) and its dev-network address. */
export function testWallet(label: string): Wallet {
  const privateKey = sha256(utf8ToBytes(`tokens test wallet ${label}`));
  return { privateKey, address: addressFromPublicKey('CH', getPublicKey(privateKey)) };
}

export const devWallet: Wallet = {
  privateKey: DEV_PRIVATE_KEY,
  address: addressFromPublicKey('CH', getPublicKey(DEV_PRIVATE_KEY)),
};

export function tokenRegistry() {
  const registry = createRegistry();
  registerTokens(registry);
  return registry;
}

export function openChainAt(dataDir: string): Chain {
  return createChain({ dataDir, genesis: createDevGenesis(), registry: tokenRegistry() });
}

/** A chain with the token types on a fresh temp dir; `cleanup()` closes it and removes the dir. */
export async function openTokenChain(): Promise<{
  chain: Chain;
  dir: string;
  cleanup: () => Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'tokens-test-'));
  const chain = openChainAt(dir);
  await chain.open();
  return {
    chain,
    dir,
    cleanup: async () => {
      await chain.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export function hashOf(address: string): Uint8Array {
  return decodeAddress(address).hash160;
}

export function mine(chain: Chain) {
  return chain.produceBlock(devWallet.privateKey);
}

/** Funds the wallets from the dev account and activates them, in one block. */
export async function fundAndActivate(chain: Chain, wallets: Wallet[], coins = 10n): Promise<void> {
  for (const wallet of wallets) {
    await chain.signAndSubmit({
      optype: 2,
      signer: devWallet.address,
      privateKey: devWallet.privateKey,
      body: {
        receiver: { hash160: hashOf(wallet.address) },
        amount: coins * COIN,
        payloadType: 0,
        payload: new Uint8Array(0),
      },
    });
    await chain.signAndSubmit({
      optype: 5,
      signer: wallet.address,
      privateKey: wallet.privateKey,
      body: {},
    });
  }
  await mine(chain);
}

export const DEFAULT_TOKEN: CreateTokenBody = {
  advanced: true,
  decimal: 4,
  supply: 1_000_000n * 10_000n,
  name: 'Test Token',
  symbol: 'TST',
  summary: 'A token for tests',
};

export function createToken(
  chain: Chain,
  issuer: Wallet,
  body: Partial<CreateTokenBody> = {},
): Promise<OperationObject> {
  return chain.signAndSubmit({
    optype: CREATE_TOKEN_OPTYPE,
    signer: issuer.address,
    privateKey: issuer.privateKey,
    body: { ...DEFAULT_TOKEN, ...body },
  });
}

export function sendToken(
  chain: Chain,
  sender: Wallet,
  token: string,
  receiver: string,
  amount: bigint,
  payload = new Uint8Array(0),
): Promise<OperationObject> {
  return chain.signAndSubmit({
    optype: TOKEN_OPTYPE,
    subtype: SEND_TOKEN_SUBTYPE,
    signer: sender.address,
    privateKey: sender.privateKey,
    body: {
      token: hashOf(token),
      receiver: hashOf(receiver),
      amount,
      payloadType: 0,
      payload,
    },
  });
}

export function adminToken(
  chain: Chain,
  sender: Wallet,
  token: string,
  method: AdminTokenMethod,
  fields: { receiver?: string; amount?: bigint; select?: boolean; lockBlocks?: number } = {},
): Promise<OperationObject> {
  const body: AdminTokenBody = { token: hashOf(token) };
  if (fields.receiver !== undefined) body.receiver = hashOf(fields.receiver);
  if (fields.amount !== undefined) body.amount = fields.amount;
  if (fields.select !== undefined) body.select = fields.select;
  if (fields.lockBlocks !== undefined) body.lockBlocks = fields.lockBlocks;
  return chain.signAndSubmit({
    optype: TOKEN_OPTYPE,
    subtype: ADMIN_TOKEN_SUBTYPES[method],
    signer: sender.address,
    privateKey: sender.privateKey,
    body,
  });
}

/** A refusal with this token rule reason (and param, when given). */
export function rule(reason: string, param?: string) {
  return expectRefusal(1040, reason, param);
}

export function expectRefusal(code: number, reason: string, param?: string) {
  return { code, reason, ...(param === undefined ? {} : { param }) };
}
