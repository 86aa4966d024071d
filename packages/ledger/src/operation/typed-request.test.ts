import { describe, expect, it } from 'vitest';
import { ACTIVATION_OPTYPE } from './activation-codec';
import { TRANSFER_OPTYPE } from './transfer-codec';
import { activationRequest, transferRequest } from './typed-request';

const privateKey = new Uint8Array(32).fill(7);
const body = {
  receiver: { account: 3 },
  amount: 10n,
  payloadType: 0,
  payload: new Uint8Array(0),
};

describe('typed operation requests', () => {
  it("take the codec's optype and subtype and keep the signing part as given", () => {
    expect(transferRequest({ signer: 'CHx', privateKey }, body)).toEqual({
      signer: 'CHx',
      privateKey,
      optype: TRANSFER_OPTYPE,
      subtype: 0,
      body,
    });
    const build = transferRequest({ signerAccount: 1, nOperation: 2, privateKey, fee: 5n }, body);
    expect(build).toMatchObject({ signerAccount: 1, nOperation: 2, fee: 5n, optype: 2 });
    const publicKey = new Uint8Array(33);
    expect(activationRequest({ signer: 'CHx', privateKey }, { publicKey })).toMatchObject({
      optype: ACTIVATION_OPTYPE,
      subtype: 0,
      body: { publicKey },
    });
  });

  it('refuse a body of the wrong shape at compile time (checked by typecheck)', () => {
    // @ts-expect-error: a transfer body has no publicKey
    transferRequest({ signer: 'CHx', privateKey }, { publicKey: new Uint8Array(33) });
    // @ts-expect-error: an amount is a bigint, never a number
    transferRequest({ signer: 'CHx', privateKey }, { ...body, amount: 10 });
    // @ts-expect-error: a request needs the private key
    activationRequest({ signer: 'CHx' }, { publicKey: new Uint8Array(33) });
    expect(true).toBe(true);
  });
});
