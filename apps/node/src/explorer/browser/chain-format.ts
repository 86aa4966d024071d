/** How the page shows chain values: amounts, times, hashes, operation types, links, operation tables. */
import { COIN_DECIMALS, formatUnits, parseUnits } from '@chain/rpc-client';
import type { BlockInfo, OperationObject } from './chain-data';
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
  reward: 'Reward',
  subsidy: 'Subsidy',
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
  key_state: 'Key store',
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

/** A producer (a block's `hmr`): its wallet, and the list of the blocks it produced. */
export function producerLinks(address: string): Child {
  if (!isAddress(address)) return mono(address);
  return h(
    'span',
    null,
    walletLink(address),
    ' · ',
    link(`#/produced/${address}`, 'blocks it produced', `blocks produced by ${address}`),
  );
}

/**
 * getBlockInfo's extra fields: what the block paid out, in base units (`reward`: subsidy and fees),
 * and what it minted (`subsidy`). A node that did not execute the block (it joined from a snapshot
 * after it), or executed it with a version that did not record them, does not have them.
 */
interface BlockRewardFields {
  reward?: string;
  subsidy?: string;
}

/** A block's reward in coins, split into subsidy and fees; or why it is not known. */
export function blockReward(info: BlockInfo): Child {
  const { reward, subsidy } = info as BlockInfo & BlockRewardFields;
  if (info.block === 0) return 'none: the genesis block is nobody’s work';
  if (reward === undefined)
    return 'not recorded by this node (it joined from a later snapshot, or ran a version without rewards then)';
  if (subsidy === undefined) return coinAmount(reward);
  return h(
    'span',
    null,
    coinAmount(reward),
    ' (subsidy ',
    coinAmount(subsidy),
    ' + fees ',
    coinAmount(info.trx_fee),
    ')',
  );
}

/** A block hash, shortened, linking to its block. */
export function blockHashLink(hash: string, block: number): Child {
  return link(`#/block/${block}`, mono(short(hash)), `block ${block} hash ${hash}`);
}

/** Where an operation is: its block, or "pending" (the node says block 0 while it waits). */
function placeOf(op: OperationObject): Child {
  return isMined(op) ? blockLink(op.block) : 'pending';
}

/** A pending operation says block 0 and maturation null. */
export function isMined(op: OperationObject): boolean {
  return op.block > 0 && op.maturation !== null;
}

/**
 * The newest block number the page has heard of (-1 until it has): confirmation counts are worked
 * out against it, and kept current as blocks arrive (`noteHead`).
 */
let headBlock = -1;

/**
 * The chain's newest block is now `block` (a new block, or a reorganisation's last block, which may
 * be lower): every confirmation count shown is brought up to date.
 */
export function noteHead(block: number, root: ParentNode = document): void {
  headBlock = block;
  root.querySelectorAll<HTMLElement>('[data-confirmed-in]').forEach((element) => {
    const text = String(confirmations(Number(element.dataset.confirmedIn), block));
    if (element.textContent !== text) element.textContent = text;
  });
}

/** Blocks from `block` to the head, both counted (the block itself is the first confirmation). */
function confirmations(block: number, head: number): number {
  return Math.max(0, head - block + 1);
}

/**
 * An operation's confirmations (head - block + 1; 0 while pending). The node's `maturation` says
 * how many blocks were on top when it answered; the page's own head counts when it is newer.
 */
export function confirmationsOf(op: OperationObject): HTMLElement {
  if (!isMined(op)) return h('span', null, '0');
  const head = Math.max(headBlock, op.block + (op.maturation ?? 0));
  return h('span', { 'data-confirmed-in': op.block }, String(confirmations(op.block, head)));
}

/** An operation relative to one wallet: it receives (IN), sends or signs (OUT), or both (SELF). */
export type Direction = 'IN' | 'OUT' | 'SELF';

export function directionOf(op: OperationObject, wallet: string): Direction | undefined {
  const sends =
    op.signer_account === wallet || (op.senders ?? []).some((s) => s.account === wallet);
  const receives = (op.receivers ?? []).some((r) => r.account === wallet);
  if (sends && receives) return 'SELF';
  if (sends) return 'OUT';
  return receives ? 'IN' : undefined;
}

const DIRECTION_TITLES: Record<Direction, string> = {
  IN: 'this wallet receives',
  OUT: 'this wallet sends or signs (and pays the fee)',
  SELF: 'this wallet sends to itself',
};

function directionCell(op: OperationObject, wallet: string): Child {
  const direction = directionOf(op, wallet);
  if (direction === undefined) return '';
  return h(
    'span',
    { class: `direction ${direction.toLowerCase()}`, title: DIRECTION_TITLES[direction] },
    direction,
  );
}

/** What an operations table shows beyond the operations. */
export interface OperationsTableOptions {
  /** The token book for the amounts and links of token operations. */
  tokens?: TokenBook;
  /** The wallet whose page this is: each operation is marked IN, OUT or SELF relative to it. */
  wallet?: string;
}

export function operationsTable(
  caption: string,
  operations: OperationObject[],
  { tokens, wallet }: OperationsTableOptions = {},
): HTMLElement {
  const headers = ['Operation', 'Block', 'Confirmations', 'Age', 'Type'];
  if (wallet !== undefined) headers.push('Direction');
  headers.push('From', 'To', 'Amount');
  return table(
    caption,
    headers,
    operations.map((op) => [
      opLink(op),
      placeOf(op),
      confirmationsOf(op),
      isMined(op) ? when(op.time) : '',
      operationKind(op, tokens),
      ...(wallet === undefined ? [] : [directionCell(op, wallet)]),
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

/** Characters a payload shown as text must not have: controls (but tab and line breaks), invisible
 * format characters (bidirectional overrides could disguise the text), unassigned and private use. */
const NOT_PRINTABLE = /[^\P{C}\t\n\r]/u;

/**
 * A payload's bytes as text, when they are valid UTF-8 made of printable characters; undefined
 * otherwise (and for an empty payload). Hex with or without `0x`.
 */
export function payloadText(hex: string): string | undefined {
  const digits = hex.replace(/^0x/i, '');
  if (digits.length === 0 || digits.length % 2 !== 0 || !/^[0-9a-f]*$/i.test(digits)) {
    return undefined;
  }
  const bytes = new Uint8Array(digits.length / 2);
  for (let i = 0; i < bytes.length; i++)
    bytes[i] = Number.parseInt(digits.slice(2 * i, 2 * i + 2), 16);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
  return NOT_PRINTABLE.test(text) ? undefined : text;
}

/**
 * A payload: its hex, and beside it its text when it is printable UTF-8 (as text, never markup).
 * An empty payload says so.
 */
export function payloadView(hex: string): HTMLElement {
  const digits = hex.replace(/^0x/i, '');
  if (digits.length === 0) return h('span', null, '(none)');
  const text = payloadText(hex);
  return h(
    'span',
    { class: 'payload' },
    mono(hex),
    text === undefined
      ? ''
      : h('span', { class: 'payload-text', 'data-payload-text': true }, ' text: “', text, '”'),
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
