import { COIN_DECIMALS, formatUnits } from '@chain/crypto';
import type { PresentContext, PresentedReceiver, PresentedSender } from '@chain/ledger';

/** Whole coins without trailing fraction zeros ("100", "0.25"). */
export function coins(amount: bigint): string {
  return formatUnits(amount, COIN_DECIMALS).replace(/\.?0+$/, '');
}

export function signerLine(ctx: PresentContext, amount?: bigint): PresentedSender {
  return {
    account: ctx.signerAddress,
    payload: '',
    payload_type: 0,
    ...(amount === undefined ? {} : { amount: amount.toString() }),
  };
}

export function walletLine(
  ctx: PresentContext,
  hash160: Uint8Array,
  amount?: bigint,
): PresentedReceiver {
  return {
    account: ctx.addressOfHash160(hash160),
    ...(amount === undefined ? {} : { amount: amount.toString() }),
  };
}

export const yesNo = (value: boolean): string => (value ? 'yes' : 'no');

/** Every participation optxt ends with the node code, as the spec says. */
export const withCode = (text: string, code: string): string => `${text}, node code ${code}`;
