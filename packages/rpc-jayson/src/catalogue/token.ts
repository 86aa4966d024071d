import { defineMethods } from './method.js';
import { p, result } from './param.js';
import type { CreateTokenResult, OperationObject, TokenHolders, TokenInfo } from './results.js';

export const ADMIN_TOKEN_METHODS = [
  'transferEnabled',
  'transferWalletEnabled',
  'lockWalletVolume',
  'burnWalletVolume',
  'mintWalletVolume',
  'ownershipWallet',
] as const;

export type AdminTokenMethod = (typeof ADMIN_TOKEN_METHODS)[number];

/** Largest `payload` of an operation, in bytes. */
export const MAX_PAYLOAD_BYTES = 255;

export const tokenMethods = defineMethods({
  createToken: {
    name: 'createToken',
    group: 'token',
    summary: 'Create a token issued by a wallet of the key store.',
    params: {
      wallet: p.wallet(),
      passphrase: p.string().secret(),
      function: p.boolean(),
      name: p.string(),
      symbol: p.string(),
      summary: p.string(),
      totalAmount: p.amount(),
      decimal: p.integer({ min: 0, max: 18 }),
    },
    result: result<CreateTokenResult>('CreateTokenResult'),
  },
  adminToken: {
    name: 'adminToken',
    group: 'token',
    summary: "Administer a token as its owner (transfer switches, holders' volumes, ownership).",
    params: {
      sender: p.wallet(),
      passphrase: p.string().secret(),
      token: p.wallet(),
      method: p.oneOf(ADMIN_TOKEN_METHODS),
      receiver: p.wallet().optional(),
      amount: p.amount().optional(),
      select: p.boolean().optional(),
    },
    result: result<OperationObject>('OperationObject'),
  },
  holderToken: {
    name: 'holderToken',
    group: 'token',
    summary: 'Holders of a token.',
    params: { wallet: p.wallet() },
    result: result<TokenHolders>('TokenHolders'),
    paramsBesideMethod: ['wallet'],
  },
  infoToken: {
    name: 'infoToken',
    group: 'token',
    summary: 'Information about a token.',
    params: { wallet: p.wallet() },
    result: result<TokenInfo>('TokenInfo'),
    paramsBesideMethod: ['wallet'],
  },
  sendToken: {
    name: 'sendToken',
    group: 'token',
    summary: 'Transfer tokens.',
    params: {
      sender: p.wallet(),
      passphrase: p.string().secret(),
      receiver: p.wallet(),
      amount: p.amount(),
      token: p.wallet(),
      payload: p.hex({ maxBytes: MAX_PAYLOAD_BYTES }).optional(),
    },
    result: result<OperationObject>('OperationObject'),
  },
});
