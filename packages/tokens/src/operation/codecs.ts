/**
 * The byte layouts of the token operations (createToken 6/0, sendToken 7/0, adminToken 7/1-6) and
 * the token address derivation, without state: what `@chain/tokens/codec` exports for offline
 * signers and browser bundles. The operation types (create-token.ts, send-token.ts,
 * admin-token.ts) add their rules to these codecs. docs/wire-format.md describes the bytes.
 */
import { concatBytes, type Hashes, hash160, u32le, utf8ToBytes } from '@chain/crypto';
import { type ByteReader, ByteWriter, DecodeError, type OperationCodec } from '@chain/ledger/codec';
import { ADMIN_TOKEN_METHODS, type AdminTokenMethod, MAX_PAYLOAD_BYTES } from '@chain/spec';
import { TokenError } from '../errors';

export const CREATE_TOKEN_OPTYPE = 6;
/** sendToken (subtype 0) and the adminToken methods (subtypes 1-6). */
export const TOKEN_OPTYPE = 7;
export const SEND_TOKEN_SUBTYPE = 0;

const TOKEN_DOMAIN = utf8ToBytes('token');

/** DESIGN §2: RIPEMD160(SHA256("token" || creator account u32le || creator n_operation u32le)). */
export function tokenHash(creator: number, nOperation: number, hashes?: Hashes): Uint8Array {
  return hash160(concatBytes(TOKEN_DOMAIN, u32le(creator), u32le(nOperation)), hashes);
}

/** An address hash in a body being encoded: 20 bytes (INVALID_DATA naming `param` otherwise). */
export function checkHash(hash: Uint8Array, param: string): Uint8Array {
  if (!(hash instanceof Uint8Array) || hash.length !== 20) {
    throw new TokenError('BAD_ADDRESS_HASH', `'${param}' must be a 20-byte address hash`, {
      param,
    });
  }
  return hash;
}

export interface SendTokenBody {
  /** Address hash of the token. */
  token: Uint8Array;
  /** Address hash of the receiver (an address not on chain yet gets an account). */
  receiver: Uint8Array;
  /** Base units. */
  amount: bigint;
  payloadType: number;
  payload: Uint8Array;
}

/**
 * sendToken (optype 7, subtype 0). Body: `token 20 || receiver 20 || amount || payload_type u8 ||
 * payload (u16 length || bytes, at most 255)`.
 */
export const sendTokenCodec: OperationCodec<SendTokenBody> = {
  optype: TOKEN_OPTYPE,
  subtype: SEND_TOKEN_SUBTYPE,
  name: 'sendToken',

  encodeBody(body) {
    if (body.payload.length > MAX_PAYLOAD_BYTES) {
      throw new TokenError(
        'PAYLOAD_TOO_LONG',
        `payload is ${body.payload.length} bytes, at most ${MAX_PAYLOAD_BYTES}`,
        { param: 'payload' },
      );
    }
    return new ByteWriter(64 + body.payload.length)
      .bytes(checkHash(body.token, 'token'))
      .bytes(checkHash(body.receiver, 'receiver'))
      .amount(body.amount, 'amount')
      .u8(body.payloadType)
      .varBytes16(body.payload)
      .finish();
  },

  decodeBody(r: ByteReader) {
    return {
      token: r.bytesCopy(20, 'token'),
      receiver: r.bytesCopy(20, 'receiver'),
      amount: r.amount('amount'),
      payloadType: r.u8('payload_type'),
      payload: r.varBytes16('payload', MAX_PAYLOAD_BYTES),
    };
  },
};

export interface CreateTokenBody {
  /** The spec's `function`: the additional functions (switches per wallet, locks, burn, mint). */
  advanced: boolean;
  decimal: number;
  /** Total supply in base units (a whole number of tokens), credited to the issuer. */
  supply: bigint;
  name: string;
  symbol: string;
  summary: string;
}

/**
 * createToken (optype 6, subtype 0). Body: `u8 advanced (0/1) || u8 decimal || supply amount ||
 * name, symbol, summary (each u16 length || utf8)`.
 */
export const createTokenCodec: OperationCodec<CreateTokenBody> = {
  optype: CREATE_TOKEN_OPTYPE,
  subtype: 0,
  name: 'createToken',

  encodeBody(body) {
    return new ByteWriter(64 + body.name.length + body.symbol.length + body.summary.length)
      .u8(body.advanced ? 1 : 0)
      .u8(body.decimal)
      .amount(body.supply, 'totalAmount')
      .string16(body.name)
      .string16(body.symbol)
      .string16(body.summary)
      .finish();
  },

  decodeBody(r: ByteReader) {
    const flag = r.u8('advanced');
    if (flag > 1) throw new DecodeError('BAD_FLAG', `advanced must be 0 or 1, got ${flag}`);
    return {
      advanced: flag === 1,
      decimal: r.u8('decimal'),
      supply: r.amount('supply'),
      name: r.string16('name'),
      symbol: r.string16('symbol'),
      summary: r.string16('summary'),
    };
  },
};

/** The adminToken methods are the spec's (one list); their subtypes are the codec's, below. */
export { ADMIN_TOKEN_METHODS, type AdminTokenMethod };

/** Each adminToken method is its own subtype of optype 7 (sendToken is subtype 0). */
export const ADMIN_TOKEN_SUBTYPES: Readonly<Record<AdminTokenMethod, number>> = {
  transferEnabled: 1,
  transferWalletEnabled: 2,
  lockWalletVolume: 3,
  burnWalletVolume: 4,
  mintWalletVolume: 5,
  ownershipWallet: 6,
};

/** The fields a method's body carries, in this order after the token, and its rights. */
export interface AdminTokenFields {
  receiver: boolean;
  amount: boolean;
  select: boolean;
  lockBlocks: boolean;
  /** Only for tokens created with the additional functions (`function` true). */
  advanced: boolean;
}

export const ADMIN_TOKEN_FIELDS: Readonly<Record<AdminTokenMethod, AdminTokenFields>> = {
  transferEnabled: {
    receiver: false,
    amount: false,
    select: true,
    lockBlocks: false,
    advanced: false,
  },
  transferWalletEnabled: {
    receiver: true,
    amount: false,
    select: true,
    lockBlocks: false,
    advanced: true,
  },
  lockWalletVolume: {
    receiver: true,
    amount: true,
    select: false,
    lockBlocks: true,
    advanced: true,
  },
  burnWalletVolume: {
    receiver: true,
    amount: true,
    select: false,
    lockBlocks: false,
    advanced: true,
  },
  mintWalletVolume: {
    receiver: true,
    amount: true,
    select: false,
    lockBlocks: false,
    advanced: true,
  },
  ownershipWallet: {
    receiver: true,
    amount: false,
    select: false,
    lockBlocks: false,
    advanced: false,
  },
};

/**
 * An adminToken operation's body; which optional fields it carries depends on the method (its
 * subtype). Encoding: `token 20 || [receiver 20] || [amount] || [select u8] || [lockBlocks u32]`.
 */
export interface AdminTokenBody {
  /** Address hash of the token. */
  token: Uint8Array;
  /** Address hash of the wallet the method acts on (all methods but transferEnabled). */
  receiver?: Uint8Array;
  /** Base units (lock, burn, mint). */
  amount?: bigint;
  /** The new switch value (transferEnabled, transferWalletEnabled). */
  select?: boolean;
  /**
   * lockWalletVolume: 0 sets the wallet's lasting lock (`volumeLock`) to `amount`; n > 0 sets its
   * time lock (`volumeTimeLock`) to `amount` until n blocks after the block that includes it.
   */
  lockBlocks?: number;
}

function missing(field: string): TokenError {
  return new TokenError('MISSING_FIELD', `the body needs '${field}'`, {
    param: field,
  });
}

function encodeAdminBody(shape: AdminTokenFields, body: AdminTokenBody): Uint8Array {
  const w = new ByteWriter(64).bytes(checkHash(body.token, 'token'));
  if (shape.receiver) {
    if (body.receiver === undefined) throw missing('receiver');
    w.bytes(checkHash(body.receiver, 'receiver'));
  }
  if (shape.amount) {
    if (body.amount === undefined) throw missing('amount');
    w.amount(body.amount, 'amount');
  }
  if (shape.select) {
    if (body.select === undefined) throw missing('select');
    w.u8(body.select ? 1 : 0);
  }
  if (shape.lockBlocks) w.u32(body.lockBlocks ?? 0);
  return w.finish();
}

function decodeAdminBody(shape: AdminTokenFields, r: ByteReader): AdminTokenBody {
  const body: AdminTokenBody = { token: r.bytesCopy(20, 'token') };
  if (shape.receiver) body.receiver = r.bytesCopy(20, 'receiver');
  if (shape.amount) body.amount = r.amount('amount');
  if (shape.select) {
    const flag = r.u8('select');
    if (flag > 1) throw new DecodeError('BAD_FLAG', `select must be 0 or 1, got ${flag}`);
    body.select = flag === 1;
  }
  if (shape.lockBlocks) body.lockBlocks = r.u32('lockBlocks');
  return body;
}

/** adminToken (optype 7, subtypes 1-6): the codec of one method. */
export function adminTokenCodec(method: AdminTokenMethod): OperationCodec<AdminTokenBody> {
  const shape = ADMIN_TOKEN_FIELDS[method];
  return {
    optype: TOKEN_OPTYPE,
    subtype: ADMIN_TOKEN_SUBTYPES[method],
    name: `adminToken.${method}`,
    encodeBody: (body) => encodeAdminBody(shape, body),
    decodeBody: (r) => decodeAdminBody(shape, r),
  };
}
