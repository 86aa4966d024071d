import { ErrorCode } from '@chain/crypto';
import type { ByteReader } from '../codec/byte-reader';
import { LedgerError } from '../errors';
import type { OperationCodec } from './wire';

export const ACTIVATION_OPTYPE = 5;

export interface ActivationBody {
  /** The compressed public key being put on chain (33 bytes). */
  publicKey: Uint8Array;
}

/** Wallet activation (optype 5, subtype 0). Body: the compressed public key, 33 bytes. */
export const activationCodec: OperationCodec<ActivationBody> = {
  optype: ACTIVATION_OPTYPE,
  subtype: 0,
  name: 'activation',

  encodeBody(body) {
    if (!(body?.publicKey instanceof Uint8Array) || body.publicKey.length !== 33) {
      throw new LedgerError(
        ErrorCode.INVALID_KEY,
        'BAD_PUBLIC_KEY',
        'activation needs a 33-byte compressed public key',
        { param: 'publicKey' },
      );
    }
    return body.publicKey.slice();
  },

  decodeBody(r: ByteReader) {
    return { publicKey: r.bytesCopy(33, 'public key') };
  },
};
