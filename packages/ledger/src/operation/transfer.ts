import { bytesToHex, COIN_DECIMALS, ErrorCode, formatUnits } from '@chain/crypto';
import { LedgerError } from '../errors';
import type { OperationType } from './registry';
import { type TransferBody, transferCodec } from './transfer-codec';

export {
  TRANSFER_OPTYPE,
  type TransferBody,
  type TransferReceiver,
  transferCodec,
} from './transfer-codec';

/** Whole coins without trailing fraction zeros ("5", "0.25"). */
export function formatCoins(amount: bigint): string {
  const text = formatUnits(amount, COIN_DECIMALS);
  return text.replace(/\.?0+$/, '');
}

/** Native coin transfer (optype 2, subtype 0): the codec of transfer-codec.ts and its rules. */
export const transferOperation: OperationType<TransferBody> = {
  ...transferCodec,

  stateKeys(body, keys) {
    if ('hash160' in body.receiver) keys.coinRecipients.push(body.receiver.hash160);
    else keys.accounts.push(body.receiver.account);
  },
  touches(op, touched) {
    const { receiver } = op.body;
    if ('hash160' in receiver) touched.hashes.push(receiver.hash160);
    else touched.accounts.push(receiver.account);
  },
  apply(ctx, op) {
    const { receiver } = op.body;
    let target: number;
    if ('account' in receiver) {
      if (ctx.account(receiver.account) === undefined) {
        throw new LedgerError(
          ErrorCode.INVALID_ACCOUNT,
          'UNKNOWN_RECEIVER',
          `receiver account ${receiver.account} does not exist`,
          { param: 'receiver' },
        );
      }
      target = ctx.coinRecipient(ctx.account(receiver.account)!.hash160, 'receiver').number;
    } else {
      // Only a transfer that will succeed may create the receiver's account (apply is atomic).
      target = ctx.coinRecipient(receiver.hash160, 'receiver').number;
    }
    if (target === ctx.signer) {
      throw new LedgerError(
        ErrorCode.INVALID_ACCOUNT,
        'SELF_TRANSFER',
        'sender and receiver are the same account',
        { param: 'receiver' },
      );
    }
    ctx.debit(ctx.signer, op.body.amount, 'amount');
    ctx.credit(target, op.body.amount);
  },

  present(op, ctx) {
    const { receiver, amount, payload, payloadType } = op.body;
    const to =
      'account' in receiver
        ? ctx.addressOf(receiver.account)
        : ctx.addressOfHash160(receiver.hash160);
    return {
      amount,
      senders: [
        { account: ctx.signerAddress, payload: bytesToHex(payload), payload_type: payloadType },
      ],
      receivers: [{ account: to }],
      optxt: `Transfer ${formatCoins(amount)} from ${ctx.signerAddress} to ${to}`,
    };
  },
};
