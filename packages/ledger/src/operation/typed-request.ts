/**
 * Typed operation requests: each package that owns an operation type exports a builder made with
 * `requestBuilder` (the ledger's `transferRequest` and `activationRequest` below, @chain/tokens'
 * and @chain/tiers' beside their codecs). A builder takes the signing part of a request and the
 * body its type's codec encodes, so a body of the wrong shape is a compile error where the request
 * is made, not a refusal at run time; the optype and subtype come from the codec, defined once.
 */
import { type ActivationBody, activationCodec } from './activation-codec';
import { type TransferBody, transferCodec } from './transfer-codec';
import type { OperationCodec } from './wire';

/**
 * The signing part of a request: `{signer, privateKey, fee?}` for the chain's `signAndSubmit`
 * (SignRequest) or `{signerAccount, nOperation, privateKey, fee?}` for `buildSignedOperation`
 * (BuildRequest); the builder keeps it as given.
 */
export interface RequestSigning {
  privateKey: Uint8Array;
  fee?: bigint;
}

/** A request of the signing part `S` whose body is the operation type's body `B`. */
export type TypedRequest<S extends RequestSigning, B> = S & {
  optype: number;
  subtype: number;
  body: B;
};

/** The builder of requests for one operation type (its codec's optype, subtype and body). */
export type RequestBuilder<B> = <S extends RequestSigning>(
  signing: S,
  body: B,
) => TypedRequest<S, B>;

export function requestBuilder<B>(
  codec: Pick<OperationCodec<B>, 'optype' | 'subtype'>,
): RequestBuilder<B> {
  const { optype, subtype } = codec;
  return (signing, body) => ({ ...signing, optype, subtype, body });
}

/** A native coin transfer (optype 2). */
export const transferRequest: RequestBuilder<TransferBody> = requestBuilder(transferCodec);

/** A wallet activation (optype 5): the signer's public key put on chain. */
export const activationRequest: RequestBuilder<ActivationBody> = requestBuilder(activationCodec);
