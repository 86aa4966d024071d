import { bytesToHex } from '@chain/crypto';
import { type ByteReader, ByteWriter, MAX_PAYLOAD_BYTES, type OperationType } from '@chain/ledger';
import { tokenRule } from '../errors';
import { tokenKey, tokenSpace, unlockedBalance } from '../state';
import { TokenBook } from '../token-book';
import {
  checkHash,
  describeAmount,
  holderAccount,
  requireToken,
  SEND_TOKEN_SUBTYPE,
  TOKEN_OPTYPE,
} from './common';

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
 * payload (u16 length || bytes, at most 255)`. Refused while the token's transfer or the sender's
 * wallet transfer is disabled, and beyond the sender's unlocked balance.
 */
export const sendTokenOperation: OperationType<SendTokenBody> = {
  optype: TOKEN_OPTYPE,
  subtype: SEND_TOKEN_SUBTYPE,
  name: 'sendToken',

  encodeBody(body) {
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
    };
  },
};
