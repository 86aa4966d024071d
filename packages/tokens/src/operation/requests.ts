/**
 * Typed requests for the token operations (see @chain/ledger's `requestBuilder`): the RPC handlers
 * and other signers build their requests here, so a body of the wrong shape does not compile and
 * the optypes and subtypes stay those of the codecs.
 */
import { type RequestBuilder, type RequestSigning, requestBuilder } from '@chain/ledger/codec';
import {
  type AdminTokenBody,
  type AdminTokenMethod,
  adminTokenCodec,
  type CreateTokenBody,
  createTokenCodec,
  type SendTokenBody,
  sendTokenCodec,
} from './codecs';

/** createToken (optype 6). */
export const createTokenRequest: RequestBuilder<CreateTokenBody> = requestBuilder(createTokenCodec);

/** sendToken (optype 7, subtype 0). */
export const sendTokenRequest: RequestBuilder<SendTokenBody> = requestBuilder(sendTokenCodec);

/** adminToken (optype 7): the method is the subtype and decides which body fields are needed. */
export function adminTokenRequest<S extends RequestSigning>(
  method: AdminTokenMethod,
  signing: S,
  body: AdminTokenBody,
) {
  return requestBuilder(adminTokenCodec(method))(signing, body);
}
