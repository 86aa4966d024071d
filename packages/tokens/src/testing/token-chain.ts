import { decodeAddress, ErrorCode } from '@chain/crypto';
import {
  type Chain,
  createChain,
  createDevGenesis,
  createRegistry,
  type OperationObject,
} from '@chain/ledger';
import {
  namespacedWallet,
  openTempChain,
  type SigningWallet,
  type TempChain,
  type TestWallet,
} from '@chain/ledger/testing';
import { TOKEN_REASONS, type TokenReason } from '@chain/spec';
import type { AdminTokenBody, AdminTokenMethod } from '../operation/admin-token';
import { ADMIN_TOKEN_SUBTYPES } from '../operation/admin-token';
import { CREATE_TOKEN_OPTYPE, SEND_TOKEN_SUBTYPE, TOKEN_OPTYPE } from '../operation/common';
import type { CreateTokenBody } from '../operation/create-token';
import { registerTokens } from '../register';

/**
 * Test-only helpers for the token types: a real chain with them registered and the token calls. The
 * chain, wallets and funding come from `@chain/ledger/testing`.
 */

/** A deterministic wallet in the tokens namespace (its key: sha256 of "tokens test wallet <label>"). */
export function testWallet(label: string): TestWallet {
  return namespacedWallet('tokens', label);
}

export function tokenRegistry() {
  const registry = createRegistry();
  registerTokens(registry);
  return registry;
}

export function openChainAt(dataDir: string): Chain {
  return createChain({ dataDir, genesis: createDevGenesis(), registry: tokenRegistry() });
}

/** A chain with the token types on a fresh temp dir; `cleanup()` closes it and removes the dir. */
export function openTokenChain(): Promise<TempChain> {
  return openTempChain({ registry: tokenRegistry(), dirPrefix: 'tokens-test-' });
}

export function hashOf(address: string): Uint8Array {
  return decodeAddress(address).hash160;
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
  issuer: SigningWallet,
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
  sender: SigningWallet,
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
  sender: SigningWallet,
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

/** A refusal with this token reason, its code the spec's (and param, when given). */
export function rule(reason: TokenReason, param?: string) {
  return expectRefusal(ErrorCode[TOKEN_REASONS[reason]], reason, param);
}

export function expectRefusal(code: number, reason: string, param?: string) {
  return { code, reason, ...(param === undefined ? {} : { param }) };
}
