import { bytesToHex } from '@chain/crypto';
import type { OperationType } from '@chain/ledger';
import { tokenRule } from '../errors';
import { holderKey, holderSpace, tokenKey, tokenSpace, unlockedBalance } from '../state';
import { TokenBook } from '../token-book';
import { type SendTokenBody, sendTokenCodec } from './codecs';
import { describeAmount, holderAccount, requireToken } from './common';

export type { SendTokenBody } from './codecs';

/**
 * sendToken (optype 7, subtype 0; body in codecs.ts). Refused while the token's transfer or the
 * sender's wallet transfer is disabled, and beyond the sender's unlocked balance.
 */
export const sendTokenOperation: OperationType<SendTokenBody> = {
  ...sendTokenCodec,

  stateKeys(body, keys, signer) {
    const key = tokenKey(body.token);
    keys.spaces.push([tokenSpace.name, key], [tokenSpace.name, tokenKey(body.receiver)]);
    keys.hashes.push(body.receiver);
    if (signer !== undefined) keys.spaces.push([holderSpace.name, holderKey(key, signer)]);
  },
  touches(op, touched) {
    touched.hashes.push(op.body.receiver);
    touched.tokens.push(op.body.token);
  },
  apply(ctx, op) {
    const { amount } = op.body;
    const { key, token } = requireToken(ctx, op.body.token);
    if (amount === 0n) {
      throw tokenRule('ZERO_TOKEN_AMOUNT', 'the amount must be more than 0', 'amount');
    }
    if (!token.transfer) {
      throw tokenRule(
        'TOKEN_TRANSFER_DISABLED',
        "the token's transfer is disabled by its owner",
        'token',
      );
    }
    if (ctx.get(tokenSpace, tokenKey(op.body.receiver)) !== undefined) {
      throw tokenRule(
        'RECEIVER_IS_TOKEN',
        'the receiver is a token address, which cannot hold tokens',
        'receiver',
      );
    }
    const receiver = holderAccount(ctx, op.body.receiver);
    if (receiver === ctx.signer) {
      throw tokenRule('TOKEN_SELF_TRANSFER', 'sender and receiver are the same wallet', 'receiver');
    }
    const book = new TokenBook(ctx, key, token);
    const from = book.holder(ctx.signer);
    if (!from.transfer) {
      throw tokenRule(
        'WALLET_TRANSFER_DISABLED',
        "the sender's transfer of this token is disabled by its owner",
        'sender',
      );
    }
    if (amount > from.balance) {
      throw tokenRule(
        'INSUFFICIENT_TOKEN_BALANCE',
        `the sender holds ${from.balance} base units of the token, ${amount} needed`,
        'amount',
      );
    }
    const unlocked = unlockedBalance(from, ctx.height);
    if (amount > unlocked) {
      throw tokenRule(
        'TOKEN_VOLUME_LOCKED',
        `only ${unlocked} of the sender's ${from.balance} base units are unlocked`,
        'amount',
      );
    }
    from.balance -= amount;
    book.holder(receiver).balance += amount;
    book.commit();
  },

  present(op, ctx) {
    const { token, receiver, amount, payload, payloadType } = op.body;
    const to = ctx.addressOfHash160(receiver);
    const tokenAddress = ctx.addressOfHash160(token);
    return {
      amount,
      senders: [
        { account: ctx.signerAddress, payload: bytesToHex(payload), payload_type: payloadType },
      ],
      receivers: [{ account: to }],
      optxt: `Send ${describeAmount(ctx, token, amount)} of token ${tokenAddress} from ${ctx.signerAddress} to ${to}`,
      // Which token moved, in a field of its own: `amount` is in this token's base units, not coins.
      extra: { token: tokenAddress },
    };
  },
};
