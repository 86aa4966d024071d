/** How the page shows chain values: amounts, times, hashes, operation types, links, operation tables. */
import { COIN_DECIMALS, formatUnits, parseUnits } from '@chain/rpc-client';
import type { OperationObject } from './chain-data';
import { type Child, h, link, mono, table } from './dom';

const CREATE_TOKEN = 6;
const TOKEN_OPERATION = 7;
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
type NodeRole = 'TOP' | 'MIDDLE' | 'BOTTOM';
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

/** An amount as text in whole units with its unit: `1.5 coins`, `0.25 EXT`. */
export function amountText(base: string | undefined, decimals: number, unit: string): string {
  return `${units(base, decimals)} ${unit}`;
}

/**
 * An amount in whole units with its unit, exactly (from the base-unit digits, never a JS number);
 * the base units show on hover (and stay in `data-base` for tools and tests).
 */
export function amount(base: string | undefined, decimals: number, unit: string): HTMLElement {
  const digits = base ?? '';
  return h(
    'span',
    { class: 'amount', title: `${digits} base units`, 'data-base': digits },
    amountText(base, decimals, unit),
  );
}

export function coins(base: string | undefined): string {
  return amountText(base, COIN_DECIMALS, 'coins');
}

/** A native coin amount (`1.5 coins`), its base units on hover. */
export function coinAmount(base: string | undefined): HTMLElement {
  return amount(base, COIN_DECIMALS, 'coins');
}

/** What the page knows of a token to show its amounts: from infoToken. */
export interface TokenMeta {
  address: string;
  /** Without the quotes the node puts around it. */
  symbol: string;
  name: string;
  decimals: number;
}

/** The tokens an operations table may name, by address. */
export type TokenBook = ReadonlyMap<string, TokenMeta>;

/** The node encloses a token's symbol, name and summary in single quotes. */
export function unquote(value: unknown): string {
  return String(value).replace(/^'(.*)'$/s, '$1');
}

const TOKEN_IN_TEXT = /[Tt]oken ([A-Za-z0-9]{2}[0-9a-f]{46})\b/;

/**
 * The token a token operation (createToken, sendToken, adminToken) is about. createToken names it in
 * `token`; the others only in their text ("... of token CH..." / "Token CH... ..."), as the node's
 * own push filter reads it.
 */
export function tokenOf(op: OperationObject): string | undefined {
  if (op.optype !== CREATE_TOKEN && op.optype !== TOKEN_OPERATION) return undefined;
  const named = (op as { token?: unknown }).token;
  if (typeof named === 'string' && isAddress(named)) return named;
  return TOKEN_IN_TEXT.exec(op.optxt)?.[1];
}

/**
 * The supply a createToken operation gave its issuer, in base units: its text ends with
 * "..., 1000.5 to CH...". Undefined when the text does not say (or in base units already).
 */
export function createdSupply(op: OperationObject, decimals: number): bigint | undefined {
  const match = /, (\d+(?:\.\d+)?) to [A-Za-z0-9]{2}[0-9a-f]{46}$/.exec(op.optxt);
  if (match === null) return undefined;
  try {
    return parseUnits(match[1]!, decimals);
  } catch {
    return undefined;
  }
}

/**
 * Base units of a decimal text such as infoToken's `totalAmount` ("1000.00"), exactly: fraction
 * digits beyond `decimals` must be zeros. Undefined for anything else.
 */
export function baseUnitsOf(text: string, decimals: number): bigint | undefined {
  const match = /^(\d+)(?:\.(\d*))?$/.exec(text.trim());
  if (match === null) return undefined;
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) return undefined;
  return BigInt(match[1]! + fraction.padEnd(decimals, '0'));
}

/** Whether an adminToken subtype moves an amount (lock, burn, mint); the others switch things. */
function movesTokens(op: OperationObject): boolean {
  return op.optype === TOKEN_OPERATION && [0, 3, 4, 5].includes(op.subtype);
}

const SECOND = 1;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** How long ago `seconds` (a Unix time) was, as of `nowMs`: `5 s ago`, `3 min ago`, `2 d ago`. */
function relativeTime(seconds: number, nowMs: number): string {
  const ago = Math.round(nowMs / 1000 - seconds);
  if (ago < 0) return ago > -5 ? 'just now' : `in ${-ago} s`;
  if (ago < MINUTE) return `${ago} s ago`;
  if (ago < HOUR) return `${Math.floor(ago / MINUTE)} min ago`;
  if (ago < DAY) return `${Math.floor(ago / HOUR)} h ago`;
  return `${Math.floor(ago / DAY)} d ago`;
}

/** A Unix time as UTC text: `2025-01-01 00:00:00 UTC`. */
export function utcText(seconds: number | string): string {
  const iso = new Date(Number(seconds) * 1000).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** A Unix time shown as how long ago it was (kept current by `refreshTimes`); the date on hover. */
export function when(seconds: number | string): HTMLElement {
  const value = Number(seconds);
  const date = new Date(value * 1000);
  if (Number.isNaN(date.getTime())) return h('span', null, String(seconds));
  return h(
    'time',
    { datetime: date.toISOString(), title: utcText(value), 'data-unix': value },
    relativeTime(value, Date.now()),
  );
}

/** Brings every relative time under `root` up to date. */
export function refreshTimes(root: ParentNode = document): void {
  const now = Date.now();
  root.querySelectorAll<HTMLElement>('time[data-unix]').forEach((element) => {
    const text = relativeTime(Number(element.dataset.unix), now);
    if (element.textContent !== text) element.textContent = text;
  });
}

/** Plain words for the spec's field names; the spec name shows on hover (`label`). */
const FIELD_LABELS: Record<string, string> = {
  // getBlockInfo
  block: 'Block',
  ver: 'Version',
  ver_a: 'Minor version',
  timestamp: 'Produced',
  nopsp: 'Operations paying a fee',
  niopsp: 'Zero-fee operations',
  hmr: 'Producer',
  blocksize: 'Size (bytes)',
  hash: 'Block hash',
  one_hash: 'Previous block hash',
  three_hash: 'Operations root',
  four_hash: 'State root',
  payload: 'Payload',
  trx_fee: 'Fees',
  operations: 'Operations',
  // getWalletInfo
  account: 'Account number',
  updated_active: 'Last sent in block',
  updated_passive: 'Last received in block',
  n_operation: 'Operations signed',
  balance: 'Balance',
  wallet: 'Address',
  volume_lock: 'Locked',
  volume_timelock: 'Time-locked',
  state: 'State',
  // operation objects
  ophash: 'Operation hash',
  optype: 'Type',
  subtype: 'Subtype',
  optxt: 'Description',
  signer_account: 'Signer',
  amount: 'Amount',
  oprice: 'Fee',
  ioprice: 'Operation price in force',
  opblock: 'Position in block',
  maturation: 'Confirmations',
  time: 'Time',
  token: 'Token',
  // infoToken
  totalHolder: 'Holders',
  advanced: 'Additional functions',
  symbol: 'Symbol',
  name: 'Name',
  summary: 'Summary',
  issuer: 'Issuer',
  owner: 'Owner',
  decimal: 'Decimal places',
  totalAmount: 'Supply',
  // nodeStatus
  status_s: 'Status',
  ready_s: 'Ready',
  port: 'P2P port',
  blocks: 'Blocks',
  // getNodePart
  code: 'Node code',
  nodeWallet: 'Node wallet',
  minerWallet: 'Miner wallet',
  nodeIndex: 'Index in the tree',
  penalty: 'Penalty',
  startTimestamp: 'Since',
  lockTime: 'Lock period ends at block',
};

/** Operation fields whose plain label differs from a block's. */
const OPERATION_LABELS: Record<string, string> = {
  block: 'Block',
  nopsp: 'Operations in its block',
  niopsp: 'Zero-fee operations in its block',
  n_operation: "Signer's operation number",
};

/** A field's plain label with its spec name on hover (`title`) and in `data-spec`. */
export function label(specName: string, of: 'operation' | 'other' = 'other'): HTMLElement {
  const text =
    (of === 'operation' ? OPERATION_LABELS[specName] : undefined) ??
    FIELD_LABELS[specName] ??
    specName;
  return h('span', { title: `spec name: ${specName}`, 'data-spec': specName }, text);
}

export function short(hash: string): string {
  return hash.length > 20 ? `${hash.slice(0, 10)}…${hash.slice(-8)}` : hash;
}

const TOKEN_SUBTYPE_NAMES: Record<number, string> = {
  0: 'Token transfer',
  1: 'Token transfers switched',
  2: 'Token wallet transfers switched',
  3: 'Token lock',
  4: 'Token burn',
  5: 'Token mint',
  6: 'Token ownership change',
};

function optypeName(optype: number, subtype?: number): string {
  if (optype === TOKEN_OPERATION && subtype !== undefined) {
    return TOKEN_SUBTYPE_NAMES[subtype] ?? OPTYPE_NAMES[optype]!;
  }
  return OPTYPE_NAMES[optype] ?? `Type ${optype}`;
}

/** A link to a token, by its symbol when the page knows it. */
export function tokenLink(address: string, tokens?: TokenBook): HTMLAnchorElement {
  const meta = tokens?.get(address);
  return link(
    `#/token/${address}`,
    meta === undefined ? mono(short(address)) : meta.symbol,
    meta === undefined ? `token ${address}` : `token ${meta.symbol} ${address}`,
  );
}

/** An operation's type in words; a token operation names and links its token. */
export function operationKind(op: OperationObject, tokens?: TokenBook): Child {
  const name = optypeName(op.optype, op.subtype);
  const token = tokenOf(op);
  if (token === undefined) return name;
  return h('span', null, `${name} · `, tokenLink(token, tokens));
}

/**
 * An operation's amount in whole units with its unit: coins, or its token's symbol (base units on
 * hover). A token the page could not read shows base units; an operation moving nothing, nothing.
 */
export function amountOf(op: OperationObject, tokens?: TokenBook): Child {
  const token = tokenOf(op);
  if (token !== undefined) {
    const meta = tokens?.get(token);
    if (op.optype === CREATE_TOKEN) {
      if (meta === undefined) return '';
      const supply = createdSupply(op, meta.decimals);
      return supply === undefined ? '' : amount(supply.toString(), meta.decimals, meta.symbol);
    }
    if (op.amount === undefined || !movesTokens(op)) return '';
    return meta === undefined
      ? `${op.amount} base units`
      : amount(op.amount, meta.decimals, meta.symbol);
  }
  if (op.amount === undefined) return '';
  return coinAmount(op.amount);
}

export function walletLink(address: string | undefined): Child {
  if (!address) return '';
  return isAddress(address)
    ? link(`#/wallet/${address}`, mono(short(address)), `wallet ${address}`)
    : mono(address);
}

function opLink(op: OperationObject): Child {
  // The ophash starts with block, account and counter; its digest (the last 40 digits) is what
  // tells operations apart at a glance.
  return link(`#/op/${op.ophash}`, mono(`${op.ophash.slice(24, 36)}…`), `operation ${op.ophash}`);
}

export function blockLink(block: number): Child {
  return link(`#/block/${block}`, String(block));
}

/** A block hash, shortened, linking to its block. */
export function blockHashLink(hash: string, block: number): Child {
  return link(`#/block/${block}`, mono(short(hash)), `block ${block} hash ${hash}`);
}

/** Where an operation is: its block, or "pending" (the node says block 0 while it waits). */
function placeOf(op: OperationObject): Child {
  return op.block > 0 && op.maturation !== null ? blockLink(op.block) : 'pending';
}

export function operationsTable(
  caption: string,
  operations: OperationObject[],
  tokens?: TokenBook,
): HTMLElement {
  return table(
    caption,
    ['Operation', 'Block', 'Age', 'Type', 'From', 'To', 'Amount'],
    operations.map((op) => [
      opLink(op),
      placeOf(op),
      op.block > 0 && op.maturation !== null ? when(op.time) : '',
      operationKind(op, tokens),
      walletLink(op.signer_account),
      h(
        'span',
        null,
        ...(op.receivers ?? []).map((r, i) =>
          h('span', null, i > 0 ? ', ' : '', walletLink(r.account)),
        ),
      ),
      amountOf(op, tokens),
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
