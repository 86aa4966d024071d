import { ErrorCode } from '@chain/crypto';
import { LedgerError } from '../errors';
import { type ActivationBody, activationCodec } from './activation-codec';
import type { OperationType } from './registry';

export { ACTIVATION_OPTYPE, type ActivationBody, activationCodec } from './activation-codec';

/**
 * Wallet activation (optype 5, subtype 0): puts the account's public key on chain, signed by that
 * key. The signer is the address's account number, or NEW_ACCOUNT when the address is not on chain.
 */
export const activationOperation: OperationType<ActivationBody> = {
  ...activationCodec,

  signerKey: (body) => body.publicKey,

  apply(ctx, op) {
    const account = ctx.editAccount(ctx.signer);
    if (account.publicKey !== null) {
      throw new LedgerError(
        ErrorCode.INVALID_OPERATION,
        'ALREADY_ACTIVE',
        `account ${account.number} is already active`,
      );
    }
    account.publicKey = op.body.publicKey;
  },

  present(_op, ctx) {
    return {
      amount: 0n,
      senders: [{ account: ctx.signerAddress, payload: '', payload_type: 0 }],
      receivers: [],
      optxt: `Active Wallet ${ctx.signerAddress}`,
    };
  },
};
