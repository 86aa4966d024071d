import { HISTORY_PAGE_PARAMS } from './history.js';
import { defineMethods } from './method.js';
import type { AnyOperationsPage, CreateTokenOperation, TokenOperation } from './operation-types.js';
import { p, result } from './param.js';
import { REFERENCE_PARAM } from './reference.js';
import type {
  CreateTokenResult,
  OperationObject,
  OperationsPage,
  TokenHolders,
  TokenInfo,
} from './results.js';

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

/**
 * Longest token name, symbol and summary, in UTF-16 code units: the same numbers as the token
 * operations' consensus rule in @chain/tokens (which the node's tests compare with these).
 */
export const MAX_TOKEN_NAME_LENGTH = 64;
export const MAX_TOKEN_SYMBOL_LENGTH = 16;
export const MAX_TOKEN_SUMMARY_LENGTH = 256;

/** holderToken paging: holders per page when `max` is omitted, and the most one page holds. */
export const DEFAULT_HOLDER_PAGE = 100;
export const MAX_HOLDER_PAGE = 1000;

export const tokenMethods = defineMethods({
  getTokenOperations: {
    name: 'getTokenOperations',
    group: 'token',
    readOnly: true,
    summary:
      "Extension: a token's mined operations (creation, sends, administration), newest first or from a block on, paged by cursor, each with its confirmations.",
    params: { token: p.wallet(), ...HISTORY_PAGE_PARAMS },
    result: result<OperationsPage, AnyOperationsPage>('OperationsPage'),
  },
  createToken: {
    name: 'createToken',
    group: 'token',
    readOnly: false,
    summary: 'Create a token issued by a wallet of the key store.',
    params: {
      wallet: p.wallet(),
      passphrase: p.string().secret(),
      function: p.boolean(),
      name: p.string({ maxLength: MAX_TOKEN_NAME_LENGTH }),
      symbol: p.string({ maxLength: MAX_TOKEN_SYMBOL_LENGTH }),
      summary: p.string({ maxLength: MAX_TOKEN_SUMMARY_LENGTH }),
      totalAmount: p.amount(),
      decimal: p.integer({ min: 0, max: 18 }),
    },
    result: result<CreateTokenResult, CreateTokenOperation>('CreateTokenResult'),
  },
  adminToken: {
    name: 'adminToken',
    group: 'token',
    readOnly: false,
    summary: "Administer a token as its owner (transfer switches, holders' volumes, ownership).",
    params: {
      sender: p.wallet(),
      passphrase: p.string().secret(),
      token: p.wallet(),
      method: p.oneOf(ADMIN_TOKEN_METHODS),
      receiver: p.wallet().optional(),
      amount: p.amount().optional(),
      select: p.boolean().optional(),
      /**
       * Extension (not in the spec), lockWalletVolume only: lock `amount` for this many blocks as the
       * wallet's time lock (`volumeTimeLock`, released by itself) instead of setting its lasting
       * lock (`volumeLock`). Omitted or 0: the lasting lock.
       */
      lockBlocks: p.integer({ min: 0, max: 0xffffffff }).optional(),
    },
    result: result<OperationObject, TokenOperation>('OperationObject'),
  },
  holderToken: {
    name: 'holderToken',
    group: 'token',
    readOnly: true,
    summary:
      'Holders of a token, one page at a time, in the order they became holders (a holder is listed while it has a balance, a lock or a disabled transfer).',
    params: {
      wallet: p.wallet(),
      /**
       * Extension (not in the spec): continue after this holder, the last `wallet` of the previous
       * page. The result's `more` says whether another page follows.
       */
      after: p.wallet().optional(),
      /** Extension (not in the spec): holders per page, 1 to 1000 (default 100). */
      max: p.integer({ min: 1, max: MAX_HOLDER_PAGE }).optional(DEFAULT_HOLDER_PAGE),
    },
    result: result<TokenHolders>('TokenHolders'),
    paramsBesideMethod: ['wallet'],
  },
  infoToken: {
    name: 'infoToken',
    group: 'token',
    readOnly: true,
    summary: 'Information about a token.',
    params: { wallet: p.wallet() },
    result: result<TokenInfo>('TokenInfo'),
    paramsBesideMethod: ['wallet'],
  },
  sendToken: {
    name: 'sendToken',
    group: 'token',
    readOnly: false,
    summary: 'Transfer tokens.',
    idempotentWith: 'reference',
    params: {
      sender: p.wallet(),
      passphrase: p.string().secret(),
      receiver: p.wallet(),
      amount: p.amount(),
      token: p.wallet(),
      payload: p.hex({ maxBytes: MAX_PAYLOAD_BYTES }).optional(),
      reference: REFERENCE_PARAM,
    },
    result: result<OperationObject, TokenOperation>('OperationObject'),
  },
});
