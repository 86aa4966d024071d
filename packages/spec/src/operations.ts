import { defineMethods } from './method.js';
import type { AnyOperation, TransferOperation } from './operation-types.js';
import { p, result } from './param.js';
import { REFERENCE_PARAM } from './reference.js';
import type { DecodedOpHash, ExecuteRawResult, OperationObject, RawSendResult } from './results.js';
import { MAX_PAYLOAD_BYTES } from './token.js';

const U32_MAX = 0xffff_ffff;
const OPHASH_BYTES = 32;

export const operationMethods = defineMethods({
  sendTo: {
    name: 'sendTo',
    group: 'operations',
    readOnly: false,
    summary: 'Transfer native coin from a wallet of the key store.',
    idempotentWith: 'reference',
    params: {
      sender: p.wallet(),
      passphrase: p.string().secret(),
      receiver: p.wallet(),
      amount: p.amount(),
      payload: p.hex({ maxBytes: MAX_PAYLOAD_BYTES }).optional(),
      reference: REFERENCE_PARAM,
    },
    result: result<OperationObject, TransferOperation>('OperationObject'),
  },
  rawSendTo: {
    name: 'rawSendTo',
    group: 'operations',
    readOnly: false,
    summary: 'Create and sign a transfer without checking or sending it (offline wallets).',
    params: {
      senderAccount: p.integer({ min: 0, max: U32_MAX }),
      senderWallet: p.wallet(),
      /**
       * The sender's current n_operation; the operation gets the next one, so the last u32 has none
       * after it (the bound names this param and the value sent, not the n_operation + 1 built).
       */
      senderNOperation: p.integer({ min: 0, max: U32_MAX - 1 }),
      passphrase: p.string().secret(),
      receiverAccount: p.integer({ min: 0, max: U32_MAX }),
      amount: p.amount(),
      payload: p.hex({ maxBytes: MAX_PAYLOAD_BYTES }).optional(),
    },
    result: result<RawSendResult>('RawSendResult'),
  },
  InfoRaw: {
    name: 'InfoRaw',
    group: 'operations',
    readOnly: true,
    summary: 'Decode a raw operation blob.',
    params: { rawoperation: p.hex() },
    result: result<OperationObject[], AnyOperation[]>('OperationObject[]'),
  },
  excuteRaw: {
    name: 'excuteRaw',
    group: 'operations',
    readOnly: false,
    summary: 'Validate a raw operation blob and submit its valid operations.',
    params: { rawoperation: p.hex() },
    result: result<ExecuteRawResult>('ExecuteRawResult'),
  },
  privSendTo: {
    name: 'privSendTo',
    group: 'operations',
    readOnly: false,
    summary: 'Transfer native coin signed with an encoded private key (never on a public network).',
    params: {
      sender: p.wallet(),
      priv: p.hex().secret(),
      receiver: p.wallet(),
      amount: p.amount(),
    },
    result: result<OperationObject, TransferOperation>('OperationObject'),
    keyMaterial: true,
  },
  getPendingOperation: {
    name: 'getPendingOperation',
    group: 'operations',
    readOnly: true,
    summary: 'Operations not yet in the chain.',
    params: {},
    result: result<OperationObject[], AnyOperation[]>('OperationObject[]'),
  },
  getPendingCount: {
    name: 'getPendingCount',
    group: 'operations',
    readOnly: true,
    summary: 'Number of pending operations.',
    params: {},
    result: result<number>('integer'),
  },
  getBlockOperations: {
    name: 'getBlockOperations',
    group: 'operations',
    readOnly: true,
    summary: 'Operations of a block.',
    params: { block: p.integer({ min: 0 }) },
    result: result<OperationObject[], AnyOperation[]>('OperationObject[]'),
  },
  getActPrice: {
    name: 'getActPrice',
    group: 'operations',
    readOnly: true,
    summary: 'Minimum fee per operation (act price), in native base units.',
    params: {},
    result: result<number>('integer'),
  },
  findOperation: {
    name: 'findOperation',
    group: 'operations',
    readOnly: true,
    summary: 'Find an operation by its ophash.',
    params: { ophash: p.hex({ exactBytes: OPHASH_BYTES }) },
    result: result<OperationObject[], AnyOperation[]>('OperationObject[]'),
  },
  findOperationByNOperation: {
    name: 'findOperationByNOperation',
    group: 'operations',
    readOnly: true,
    summary:
      "Extension: a signer's operation by its n_operation, pending or mined (empty when it has none): what to look up before signing again after a lost reply.",
    params: { wallet: p.wallet(), n_operation: p.integer({ min: 1, max: U32_MAX }) },
    result: result<OperationObject[], AnyOperation[]>('OperationObject[]'),
  },
  decodeOpHash: {
    name: 'decodeOpHash',
    group: 'operations',
    readOnly: true,
    summary: 'Split an ophash into block, account, n_operation and digest.',
    params: { ophash: p.hex({ exactBytes: OPHASH_BYTES }) },
    result: result<DecodedOpHash[]>('DecodedOpHash[]'),
  },
});
