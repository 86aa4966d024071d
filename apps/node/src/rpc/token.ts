import { decodeAddress, hexToBytes } from '@chain/crypto';
import type { OperationObject, SignRequest } from '@chain/ledger';
import {
  type CallContext,
  type CreateTokenResult,
  type GroupHandlers,
  InvalidParamsError,
} from '@chain/rpc-jayson';
import {
  ADMIN_TOKEN_FIELDS,
  type AdminTokenBody,
  adminTokenRequest,
  type CreateTokenBody,
  createTokenRequest,
  parseTokenAmount,
  parseTotalAmount,
  readToken,
  type SendTokenBody,
  sendTokenRequest,
  tokenHolders,
  tokenInfo,
} from '@chain/tokens';
import type { NodeContext } from './context';
import { historyQuery } from './history';
import { keyFromStore, submitSigned, usingKey, wallet } from './keys';
import { checkedReference, intentOf, sendWithReference } from './referenced-send';

/** Who signs a request: the wallet, with its key from the key store. */
interface StoreSigning {
  signer: string;
  privateKey: Uint8Array;
}

/**
 * Signs with `signer`'s key-store key the request `build` makes (a typed builder of @chain/tokens)
 * and submits; the key is wiped afterwards, and the ledger's `signer` param becomes the request's.
 */
async function submit(
  node: NodeContext,
  signer: string,
  build: (signing: StoreSigning) => SignRequest,
  params: { wallet: string; passphrase: string },
  passphrase: string,
  caller: CallContext,
): Promise<OperationObject> {
  const privateKey = await keyFromStore(node, signer, passphrase, params, caller);
  return usingKey(privateKey, () =>
    submitSigned(node, build({ signer, privateKey }), params.wallet),
  );
}

function hash160Of(node: NodeContext, address: string): Uint8Array {
  return decodeAddress(address, node.chain.prefix).hash160;
}

/** The token's decimal from the pending state, so a token still waiting for its block is usable. */
function decimalOf(node: NodeContext, token: string): number {
  return readToken(node.chain, token, 'token', { pending: true }).token.decimal;
}

function required<T>(value: T | undefined, param: string, method: string): T {
  if (value === undefined) {
    throw new InvalidParamsError(`parameter '${param}' is required by method ${method}`, param);
  }
  return value;
}

/** adminToken's params that only some of its methods use. */
const METHOD_PARAMS = ['receiver', 'amount', 'select', 'lockBlocks'] as const;

/**
 * The spec lists every adminToken param in one row; a param the chosen method does not use is
 * refused rather than ignored, since the caller meant something by it (a `receiver` given to
 * transferEnabled suggests transferWalletEnabled was meant).
 */
function refuseUnusedParams(
  params: Partial<Record<(typeof METHOD_PARAMS)[number], unknown>>,
  fields: Readonly<Record<(typeof METHOD_PARAMS)[number], boolean>>,
  method: string,
): void {
  const uses = METHOD_PARAMS.filter((name) => fields[name]);
  for (const name of METHOD_PARAMS) {
    if (params[name] === undefined || fields[name]) continue;
    throw new InvalidParamsError(
      `parameter '${name}' is not used by method ${method} (it takes ${uses.join(', ')})`,
      name,
    );
  }
}

/** The Token group (createToken, adminToken, sendToken, holderToken, infoToken). */
export function tokenHandlers(node: NodeContext): GroupHandlers<'token'> {
  return {
    async createToken(params, caller) {
      const issuer = wallet(node, params.wallet, 'wallet');
      const body: CreateTokenBody = {
        advanced: params.function,
        decimal: params.decimal,
        supply: parseTotalAmount(params.totalAmount, params.decimal, 'totalAmount'),
        name: params.name,
        symbol: params.symbol,
        summary: params.summary,
      };
      const op = await submit(
        node,
        issuer,
        (signing) => createTokenRequest(signing, body),
        { wallet: 'wallet', passphrase: 'passphrase' },
        params.passphrase,
        caller,
      );
      // The token type's presentation adds `token` and leaves out the transfer-only fields.
      return op as unknown as CreateTokenResult;
    },

    async sendToken(params, caller) {
      const sender = wallet(node, params.sender, 'sender');
      const token = wallet(node, params.token, 'token');
      const receiver = wallet(node, params.receiver, 'receiver');
      const body: SendTokenBody = {
        token: hash160Of(node, token),
        receiver: hash160Of(node, receiver),
        amount: parseTokenAmount(params.amount, decimalOf(node, token), 'amount'),
        payloadType: 0,
        payload: hexToBytes(params.payload ?? '', 'payload'),
      };
      const reference = checkedReference(params.reference);
      if (reference === undefined) {
        return submit(
          node,
          sender,
          (signing) => sendTokenRequest(signing, body),
          { wallet: 'sender', passphrase: 'passphrase' },
          params.passphrase,
          caller,
        );
      }
      const privateKey = await keyFromStore(
        node,
        sender,
        params.passphrase,
        { wallet: 'sender', passphrase: 'passphrase' },
        caller,
      );
      return usingKey(privateKey, () =>
        sendWithReference(node, {
          signer: sender,
          reference,
          intent: intentOf({
            method: 'sendToken',
            receiver,
            amount: body.amount,
            token,
            ...(params.payload === undefined ? {} : { payload: params.payload }),
          }),
          request: sendTokenRequest({ signer: sender, privateKey }, body),
          signerParam: 'sender',
        }),
      );
    },

    async adminToken(params, caller) {
      const { method } = params;
      const fields = ADMIN_TOKEN_FIELDS[method];
      const sender = wallet(node, params.sender, 'sender');
      const token = wallet(node, params.token, 'token');
      refuseUnusedParams(params, fields, method);
      const body: AdminTokenBody = { token: hash160Of(node, token) };
      if (fields.receiver) {
        const receiver = wallet(node, required(params.receiver, 'receiver', method), 'receiver');
        body.receiver = hash160Of(node, receiver);
      }
      if (fields.amount) {
        const text = required(params.amount, 'amount', method);
        body.amount = parseTokenAmount(text, decimalOf(node, token), 'amount');
      }
      if (fields.select) body.select = required(params.select, 'select', method);
      if (fields.lockBlocks) body.lockBlocks = params.lockBlocks ?? 0;
      return submit(
        node,
        sender,
        (signing) => adminTokenRequest(method, signing, body),
        { wallet: 'sender', passphrase: 'passphrase' },
        params.passphrase,
        caller,
      );
    },

    holderToken(params) {
      const token = wallet(node, params.wallet, 'wallet');
      return tokenHolders(node.chain, token, { after: params.after, max: params.max });
    },

    getTokenOperations({ token, max, cursor, fromBlock }) {
      const address = wallet(node, token, 'token');
      return node.chain.tokenOperations(address, historyQuery(max, cursor, fromBlock));
    },

    infoToken(params) {
      return tokenInfo(node.chain, wallet(node, params.wallet, 'wallet'), 'wallet');
    },
  };
}
