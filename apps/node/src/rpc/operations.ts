import {
  ADDRESS_PREFIX_LENGTH,
  bytesToHex,
  ChainError,
  COIN_DECIMALS,
  decodeAddress,
  ErrorCode,
  hexToBytes,
  parseUnits,
} from '@chain/crypto';
import { nativeHashes } from '@chain/crypto/native';
import { type OperationObject, type TransferBody, transferRequest } from '@chain/ledger';
import { decodeOpHash } from '@chain/ophash';
import type { GroupHandlers } from '@chain/rpc-jayson';
import { isTokenAddress } from '@chain/tokens';
import type { NodeContext } from './context';
import { keyForWallet, keyFromStore, submitSigned, usingKey, wallet } from './keys';
import { checkedReference, intentOf, sendWithReference } from './referenced-send';

/** A transfer's body as the ledger's transfer operation type encodes it. */
function transferBody(
  receiver: { hash160: Uint8Array } | { account: number },
  amount: bigint,
  payload: string | undefined,
): TransferBody {
  return { receiver, amount, payloadType: 0, payload: hexToBytes(payload ?? '', 'payload') };
}

/**
 * A wallet address of a request checked once (network prefix, checksum): its canonical text and
 * its hash. With the checksum verified, the canonical text is the input with lowercase hex, so
 * this costs one checksum where decoding and re-encoding (keys.ts's `wallet`) costs two; sendTo
 * checks two addresses per call.
 */
function checkedWallet(
  node: NodeContext,
  address: string,
  param: string,
): { address: string; hash160: Uint8Array } {
  // node:crypto's SHA-256 for the checksum: a new receiver's address is checked on every call.
  const { hash160 } = decodeAddress(address, node.chain.prefix, param, nativeHashes);
  return {
    address:
      address.slice(0, ADDRESS_PREFIX_LENGTH) + address.slice(ADDRESS_PREFIX_LENGTH).toLowerCase(),
    hash160,
  };
}

function receiverOf(node: NodeContext, address: string) {
  return { hash160: checkedWallet(node, address, 'receiver').hash160 };
}

/**
 * rawSendTo checks no state (spec), except this: coins sent to a token's address are lost for good
 * (it has no key), so an account that is a token's is refused as a receiver.
 */
function refuseTokenAccount(node: NodeContext, account: number, param: string): void {
  const view = node.chain.accountByNumber(account);
  if (view === undefined) return;
  const { hash160 } = decodeAddress(view.address, node.chain.prefix, param);
  if (isTokenAddress(node.chain, hash160, { pending: true })) {
    throw new ChainError(
      ErrorCode.INVALID_ACCOUNT,
      'RECEIVER_IS_TOKEN',
      `account ${account} in '${param}' is a token address, which has no key: native coins sent there are lost`,
      { param },
    );
  }
}

function coins(text: string): bigint {
  return parseUnits(text, COIN_DECIMALS, 'amount');
}

interface ExecuteRawError {
  valid: false;
  errors: string;
}

export function operationsHandlers(node: NodeContext): GroupHandlers<'operations'> {
  return {
    async sendTo(params, caller) {
      const sender = checkedWallet(node, params.sender, 'sender').address;
      const receiver = checkedWallet(node, params.receiver, 'receiver');
      const amount = coins(params.amount);
      const body = transferBody({ hash160: receiver.hash160 }, amount, params.payload);
      const reference = checkedReference(params.reference);
      const privateKey = await keyFromStore(
        node,
        sender,
        params.passphrase,
        { wallet: 'sender', passphrase: 'passphrase' },
        caller,
      );
      return usingKey(privateKey, () => {
        const request = transferRequest({ signer: sender, privateKey }, body);
        if (reference === undefined) return submitSigned(node, request, 'sender');
        return sendWithReference(node, {
          signer: sender,
          reference,
          intent: intentOf({
            method: 'sendTo',
            receiver: receiver.address,
            amount,
            ...(params.payload === undefined ? {} : { payload: params.payload }),
          }),
          request,
          signerParam: 'sender',
        });
      });
    },

    async privSendTo(params) {
      const sender = checkedWallet(node, params.sender, 'sender').address;
      const privateKey = keyForWallet(node, params.priv, 'priv', sender, 'sender');
      return usingKey(privateKey, () => {
        const receiver = receiverOf(node, params.receiver);
        const body = transferBody(receiver, coins(params.amount), undefined);
        return submitSigned(node, transferRequest({ signer: sender, privateKey }, body), 'sender');
      });
    },

    async rawSendTo(params, caller) {
      const sender = wallet(node, params.senderWallet, 'senderWallet');
      const amount = coins(params.amount);
      refuseTokenAccount(node, params.receiverAccount, 'receiverAccount');
      const privateKey = await keyFromStore(
        node,
        sender,
        params.passphrase,
        { wallet: 'senderWallet', passphrase: 'passphrase' },
        caller,
      );
      const fee = node.chain.actPrice;
      const operation = await usingKey(privateKey, () =>
        node.chain.buildSignedOperation(
          transferRequest(
            {
              signerAccount: params.senderAccount,
              nOperation: params.senderNOperation + 1,
              privateKey,
              fee,
            },
            transferBody({ account: params.receiverAccount }, amount, params.payload),
          ),
        ),
      );
      return {
        amount: amount.toString(),
        fee: fee.toString(),
        rawoperation: bytesToHex(node.chain.encodeRaw([operation])),
      };
    },

    InfoRaw({ rawoperation }) {
      return decodeRaw(node, rawoperation).map((operation) =>
        node.chain.describeOperation(operation),
      );
    },

    async excuteRaw({ rawoperation }) {
      let submissions: Promise<OperationObject>[];
      try {
        submissions = node.chain.submitRaw(hexToBytes(rawoperation, 'rawoperation'), {
          local: true,
        });
      } catch (error) {
        return rejected(error instanceof ChainError ? error.withParam('rawoperation') : error);
      }
      // One operation (the usual call) is awaited on its own: no Promise.all, no array.
      if (submissions.length === 1) {
        try {
          return await submissions[0]!;
        } catch (error) {
          return rejected(error);
        }
      }
      return Promise.all(submissions.map((submitted) => submitted.catch(rejected)));
    },

    getPendingOperation() {
      return node.chain.pendingOperations();
    },

    getPendingCount() {
      return node.chain.pendingCount();
    },

    getBlockOperations({ block }) {
      return node.chain.blockOperations(block);
    },

    getActPrice() {
      return Number(node.chain.actPrice);
    },

    findOperationByNOperation(params) {
      return node.chain.findByNOperation(wallet(node, params.wallet, 'wallet'), params.n_operation);
    },

    findOperation({ ophash }) {
      return node.chain.findOperation(ophash);
    },

    decodeOpHash({ ophash }) {
      const parts = decodeOpHash(ophash, 'ophash');
      const digest = bytesToHex(parts.digest);
      return [
        {
          block: parts.block,
          account: parts.account,
          n_operation: parts.nOperation,
          mdhash: digest,
          ophash: digest,
        },
      ];
    },
  };
}

function decodeRaw(node: NodeContext, rawoperation: string): Uint8Array[] {
  try {
    return node.chain.decodeRaw(hexToBytes(rawoperation, 'rawoperation'));
  } catch (error) {
    throw error instanceof ChainError ? error.withParam('rawoperation') : error;
  }
}

/** excuteRaw reports a refused operation in its result, as the spec shows, not as a JSON-RPC error. */
function rejected(error: unknown): ExecuteRawError | OperationObject {
  if (error instanceof ChainError)
    return { valid: false, errors: `${error.reason}: ${error.message}` };
  throw error;
}
