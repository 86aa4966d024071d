import { ErrorCode } from '@chain/crypto';
import { LedgerError } from '../errors';
import { type ActivationBody, activationCodec } from './activation-codec';
import type { OperationType } from './registry';

export { ACTIVATION_OPTYPE, type ActivationBody, activationCodec } from './activation-codec';

/**
 * An address not on chain may activate itself without a fee (it has no coins to pay one), which
 * makes a new account for free: bounded per block, so that nobody can grow the state without cost
 * faster than this. An address that received coins first (its account paid for by the sender's fee)
 * is not counted.
 */
export const MAX_NEW_ACCOUNT_ACTIVATIONS_PER_BLOCK = 32;

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
        { param: 'signer' },
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
