import { ErrorCode } from '@chain/crypto';
import { MAX_PAYLOAD_BYTES } from '@chain/spec';
import type { ByteReader } from '../codec/byte-reader';
import { ByteWriter } from '../codec/byte-writer';
import { DecodeError, type LedgerDataReason, LedgerError } from '../errors';
import type { OperationCodec } from './wire';

export const TRANSFER_OPTYPE = 2;

/** The receiver by account number (rawSendTo) or by address hash (sendTo: may be a new account). */
export type TransferReceiver = { account: number } | { hash160: Uint8Array };

export interface TransferBody {
  receiver: TransferReceiver;
  amount: bigint;
  payloadType: number;
  payload: Uint8Array;
}

function invalid(reason: LedgerDataReason, message: string, param?: string): LedgerError {
  return new LedgerError(ErrorCode.INVALID_DATA, reason, message, param ? { param } : {});
}

/**
 * Native coin transfer (optype 2, subtype 0). Body: receiver (`u8 tag`: 0 = account u32le,
 * 1 = hash160 20 bytes), amount, payload_type u8, payload `u16 length || bytes` (<= 255 bytes).
 */
export const transferCodec: OperationCodec<TransferBody> = {
  optype: TRANSFER_OPTYPE,
  subtype: 0,
  name: 'transfer',

  encodeBody(body) {
    if (typeof body !== 'object' || body === null) throw invalid('BAD_BODY', 'transfer body');
    const w = new ByteWriter(64 + (body.payload?.length ?? 0));
    const receiver = body.receiver as Partial<{ account: number; hash160: Uint8Array }>;
    if (receiver && 'hash160' in receiver && receiver.hash160 instanceof Uint8Array) {
      if (receiver.hash160.length !== 20) {
        throw invalid('BAD_RECEIVER', 'receiver hash must be 20 bytes', 'receiver');
      }
      w.u8(1).bytes(receiver.hash160);
    } else if (
      receiver &&
      typeof receiver.account === 'number' &&
      Number.isInteger(receiver.account) &&
      receiver.account >= 0 &&
      receiver.account < 0xffffffff
    ) {
      w.u8(0).u32(receiver.account);
    } else {
      throw invalid('BAD_RECEIVER', 'receiver must be {account} or {hash160}', 'receiver');
    }
    w.amount(body.amount, 'amount');
    const payload = body.payload ?? new Uint8Array(0);
    if (payload.length > MAX_PAYLOAD_BYTES) {
      throw invalid(
        'PAYLOAD_TOO_LONG',
        `payload is ${payload.length} bytes, at most ${MAX_PAYLOAD_BYTES}`,
        'payload',
      );
    }
    const payloadType = body.payloadType ?? 0;
    if (!Number.isInteger(payloadType) || payloadType < 0 || payloadType > 0xff) {
      throw invalid('BAD_PAYLOAD_TYPE', 'payload_type must be 0..255', 'payload_type');
    }
    w.u8(payloadType).varBytes16(payload);
    return w.finish();
  },

  decodeBody(r: ByteReader) {
    const tag = r.u8('receiver tag');
    let receiver: TransferReceiver;
    if (tag === 0) receiver = { account: r.u32('receiver account') };
    else if (tag === 1) receiver = { hash160: r.bytesCopy(20, 'receiver hash') };
    else throw new DecodeError('BAD_RECEIVER', `unknown receiver tag ${tag}`);
    const amount = r.amount('amount');
    const payloadType = r.u8('payload_type');
    const payload = r.varBytes16('payload', MAX_PAYLOAD_BYTES);
    return { receiver, amount, payloadType, payload };
  },
};
