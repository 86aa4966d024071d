/** How the page shows chain values: amounts, times, hashes, operation types, links, operation tables. */
import { COIN_DECIMALS, formatUnits } from '@chain/rpc-client';
import type { OperationObject } from './chain-data';
import { type Child, h, link, mono, table } from './dom';

const TRANSFER = 2;
const OPTYPE_NAMES: Record<number, string> = {
  2: 'Transfer',
  5: 'Wallet activation',
  6: 'Token creation',
  7: 'Token operation',
  8: 'Participation: TOP node',
  9: 'Participation: TOP H/W check',
  14: 'Participation: MIDDLE request',
  15: 'Participation: MIDDLE approval',
  16: 'Participation: MIDDLE H/W check',
  17: 'Participation: MIDDLE H/W approval',
  18: 'Participation: BOTTOM request',
  19: 'Participation: BOTTOM approval, start or cancel',
};
/** The two-letter participation states (getNodePart): the role and where it stands. */
const NODE_STATES: Record<string, { role: NodeRole; text: string }> = {
  TH: { role: 'TOP', text: 'joined, its H/W check is due' },
  TR: { role: 'TOP', text: 'H/W checked, ready to start' },
  MN: { role: 'TOP', text: 'mining' },
  MW: { role: 'MIDDLE', text: 'waiting for approval by its TOP' },
  MH: { role: 'MIDDLE', text: 'approved, its H/W check is due' },
  MV: { role: 'MIDDLE', text: 'H/W checked, waiting for its TOP to approve it' },
  MA: { role: 'MIDDLE', text: 'participating' },
  BW: { role: 'BOTTOM', text: 'waiting for approval by its MIDDLE' },
  BA: { role: 'BOTTOM', text: 'participating' },
};
export type NodeRole = 'TOP' | 'MIDDLE' | 'BOTTOM';
/** Participation operations: nodeStep1 (a TOP node joins). */
export const OPTYPE_TOP_JOIN = 8;
const WALLET_ADDRESS = /^[A-Za-z0-9]{2}[0-9a-f]{46}$/i;

/** Whether `text` looks like a wallet (or token) address: prefix and 46 hex digits. */
export function isAddress(text: string): boolean {
  return WALLET_ADDRESS.test(text);
}

/** Base units as a decimal of `decimals` places, without trailing zeros; anything else as it is. */
export function units(base: string | undefined, decimals: number): string {
  if (base === undefined || !/^\d+$/.test(base)) return base ?? '';
  if (!Number.isSafeInteger(decimals) || decimals < 0 || decimals > 255) return base;
  return formatUnits(BigInt(base), decimals);
}

export function coins(base: string | undefined): string {
  return `${units(base, COIN_DECIMALS)} coins`;
}

export function when(seconds: number | string): HTMLElement {
  const date = new Date(Number(seconds) * 1000);
  if (Number.isNaN(date.getTime())) return h('span', null, String(seconds));
  const iso = date.toISOString();
  return h('time', { datetime: iso }, `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`);
}

export function short(hash: string): string {
  return hash.length > 20 ? `${hash.slice(0, 10)}…${hash.slice(-8)}` : hash;
}

export function optypeName(optype: number): string {
  return OPTYPE_NAMES[optype] ?? `Type ${optype}`;
}

export function amountOf(op: OperationObject): string {
  if (op.amount === undefined) return '';
  return op.optype === TRANSFER ? coins(op.amount) : `${op.amount} base units`;
}

export function walletLink(address: string | undefined): Child {
  if (!address) return '';
  return isAddress(address)
    ? link(`#/wallet/${address}`, mono(short(address)), `wallet ${address}`)
    : mono(address);
}

export function opLink(op: OperationObject): Child {
  // The ophash starts with block, account and counter; its digest (the last 40 digits) is what
  // tells operations apart at a glance.
  return link(`#/op/${op.ophash}`, mono(`${op.ophash.slice(24, 36)}…`), `operation ${op.ophash}`);
}

export function blockLink(block: number): Child {
  return link(`#/block/${block}`, String(block));
}

export function operationsTable(caption: string, operations: OperationObject[]): HTMLElement {
  return table(
    caption,
    ['Operation', 'Block', 'Type', 'From', 'To', 'Amount'],
    operations.map((op) => [
      opLink(op),
      op.block > 0 ? blockLink(op.block) : 'pending',
      optypeName(op.optype),
      walletLink(op.signer_account),
      h(
        'span',
        null,
        ...(op.receivers ?? []).map((r, i) =>
          h('span', null, i > 0 ? ', ' : '', walletLink(r.account)),
        ),
      ),
      amountOf(op),
    ]),
  );
}

/** The role a participation state belongs to (undefined for a state this page does not know). */
export function roleOf(state: string): NodeRole | undefined {
  return NODE_STATES[state]?.role;
}

/** A participation state as `MN (mining)`. */
export function nodeStateText(state: string): string {
  const known = NODE_STATES[state];
  return known === undefined ? state : `${state} (${known.text})`;
}

/** The node code a participation operation's text ends with. */
export function nodeCodeOf(op: OperationObject): string | undefined {
  return /node code ([0-9a-f]{16})$/.exec(op.optxt)?.[1];
}
