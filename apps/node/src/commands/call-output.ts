/**
 * The human-readable form of a JSON-RPC result for `chain-node call`: scalars bare (as bitcoin-cli
 * prints them), objects and arrays as indented `key  value` lines, native-coin amounts in base
 * units followed by their value in coins, token amounts in token units with the symbol followed by
 * their base units, Unix times followed by their UTC date.
 */
import { COIN_DECIMALS, formatUnits } from '@chain/crypto';
import { TRANSFER_OPTYPE } from '@chain/ledger/codec';

/** Fields holding native-coin base units, by result type (the catalogue's result name). */
const COIN_FIELDS: Readonly<Record<string, readonly string[]>> = {
  WalletInfo: ['balance', 'volume_lock', 'volume_timelock'],
  OperationObject: ['oprice', 'ioprice'],
  HardwareCheckResult: ['oprice', 'ioprice'],
  ExecuteRawResult: ['oprice', 'ioprice'],
  CreateTokenResult: ['oprice'],
  BlockInfo: ['trx_fee'],
  RawSendResult: ['amount', 'fee'],
};

/** Result types whose `amount` is native coin when the operation is a transfer (optype 2). */
const TRANSFER_AMOUNT_TYPES = new Set(['OperationObject', 'ExecuteRawResult']);

/** createToken and the token operations (sendToken, adminToken): the optypes naming a token. */
const CREATE_TOKEN_OPTYPE = 6;
const TOKEN_OPTYPE = 7;
/** Token operation subtypes that move an amount: transfer, lock, burn, mint (the others switch). */
const TOKEN_AMOUNT_SUBTYPES = new Set([0, 3, 4, 5]);
/** Fields of a holderToken holder holding the token's base units. */
const HOLDER_TOKEN_FIELDS = new Set(['balance', 'volumeLock', 'volumeTimeLock']);
/** How a token operation's text names its token ("... of token CH..." / "Token CH... ..."). */
const TOKEN_IN_TEXT = /[Tt]oken ([A-Za-z0-9]{2}[0-9a-f]{46})\b/;
const ADDRESS = /^[A-Za-z0-9]{2}[0-9a-f]{46}$/;

/** What the output needs of a token to show its amounts (infoToken's symbol and decimal). */
export interface TokenMeta {
  /** Without the quotes the node puts around it. */
  symbol: string;
  decimals: number;
}

/** The tokens a result's amounts are in, by address. */
export type TokenBook = ReadonlyMap<string, TokenMeta>;

/** Fields holding Unix times in seconds. */
const TIME_FIELDS = new Set(['time', 'timestamp', 'startTimestamp']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What `lines` knows besides the value: the tokens read, the token of a holderToken result. */
interface Context {
  tokens: TokenBook;
  /** The token whose holders a TokenHolders result lists (the call's `wallet` param). */
  holdersOf?: string;
}

/**
 * The result as text for a terminal; `resultName` is the catalogue's name of its type, `params` the
 * call's, `tokens` what infoToken said of the tokens tokensToRead named.
 */
export function formatResult(
  result: unknown,
  resultName: string,
  params?: unknown,
  tokens: TokenBook = new Map(),
): string {
  const type = resultName.replace(/\[\]$/, '');
  const value = result as Json;
  if (!isContainer(value)) return scalar(value);
  const holdersOf = type === 'TokenHolders' ? walletParam(params) : undefined;
  return lines(value, type, '', { tokens, ...(holdersOf ? { holdersOf } : {}) }).join('\n');
}

/**
 * The tokens whose symbol and decimal places the output of this result needs (to be read with
 * infoToken): those of token operations moving an amount, and a holderToken call's token.
 */
export function tokensToRead(result: unknown, resultName: string, params?: unknown): string[] {
  const found = new Set<string>();
  if (resultName === 'TokenHolders') {
    const token = walletParam(params);
    if (token !== undefined) found.add(token);
  }
  const visit = (value: unknown) => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const token = movedToken(value as { [key: string]: Json });
    if (token !== undefined) found.add(token);
  };
  if (TOKEN_RESULT_TYPES.has(resultName.replace(/\[\]$/, ''))) visit(result);
  return [...found];
}

/** Result types that are (or list) operation objects, which may be token operations. */
const TOKEN_RESULT_TYPES = new Set(['OperationObject', 'ExecuteRawResult']);

function walletParam(params: unknown): string | undefined {
  const wallet = Array.isArray(params)
    ? params[0]
    : typeof params === 'object' && params !== null
      ? (params as { wallet?: unknown }).wallet
      : undefined;
  return typeof wallet === 'string' && ADDRESS.test(wallet) ? wallet : undefined;
}

/** The token whose amount an operation object's `amount` is, if it is a token operation moving one. */
function movedToken(op: { [key: string]: Json }): string | undefined {
  if (op.optype !== TOKEN_OPTYPE || !TOKEN_AMOUNT_SUBTYPES.has(op.subtype as number)) {
    return undefined;
  }
  return tokenOf(op);
}

/** The token a createToken or token operation is about: its `token` field, else its text. */
function tokenOf(op: { [key: string]: Json }): string | undefined {
  if (op.optype !== CREATE_TOKEN_OPTYPE && op.optype !== TOKEN_OPTYPE) return undefined;
  if (typeof op.token === 'string' && ADDRESS.test(op.token)) return op.token;
  return typeof op.optxt === 'string' ? TOKEN_IN_TEXT.exec(op.optxt)?.[1] : undefined;
}

/** The node encloses a token's symbol, name and summary in single quotes. */
export function unquote(value: unknown): string {
  return String(value).replace(/^'(.*)'$/s, '$1');
}

function isContainer(value: Json): value is Json[] | { [key: string]: Json } {
  return typeof value === 'object' && value !== null;
}

function scalar(value: Json): string {
  if (typeof value === 'string') return value === '' ? '""' : value;
  return JSON.stringify(value);
}

function lines(
  value: Json[] | { [key: string]: Json },
  type: string,
  indent: string,
  context: Context,
): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${indent}[]`];
    return value.flatMap((item) => {
      if (!isContainer(item)) return [`${indent}- ${scalar(item)}`];
      const [first = '', ...rest] = lines(item, type, `${indent}  `, context);
      return [`${indent}- ${first.slice(indent.length + 2)}`, ...rest];
    });
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return [`${indent}{}`];
  const width = Math.max(...entries.map(([key]) => key.length));
  const out: string[] = [];
  for (const [key, item] of entries) {
    if (isContainer(item) && !isEmpty(item)) {
      out.push(`${indent}${key}`);
      // Nested objects (senders, netstats, ...) have no coin fields of the parent type; a
      // holderToken result's holders have the token's.
      const nested = type === 'TokenHolders' && key === 'holder' ? 'TokenHolder' : '';
      out.push(...lines(item, nested, `${indent}  `, context));
      continue;
    }
    const token = tokenAmount(key, item, value, type, context);
    if (token !== undefined) {
      out.push(`${indent}${key.padEnd(width)}  ${token.text}  (${token.note})`);
      continue;
    }
    const text = isContainer(item) ? (Array.isArray(item) ? '[]' : '{}') : scalar(item);
    const note = annotation(key, item, value, type);
    out.push(`${indent}${key.padEnd(width)}  ${text}${note ? `  (${note})` : ''}`.trimEnd());
  }
  return out;
}

/**
 * A token amount in token units with the symbol and its base units beside (`1.5 EXT`, `15000 base
 * units`), exactly: from the digits, never through a JS number. A token infoToken could not tell
 * about keeps its base units, naming the token.
 */
function tokenAmount(
  key: string,
  item: Json,
  parent: { [key: string]: Json },
  type: string,
  context: Context,
): { text: string; note: string } | undefined {
  if (typeof item !== 'string') return undefined;
  let token: string | undefined;
  let base: bigint | undefined;
  let meta: TokenMeta | undefined;
  if (type === 'TokenInfo' && key === 'totalAmount') {
    meta = tokenMetaOf(parent);
    if (meta === undefined) return undefined;
    base = baseUnitsOf(item, meta.decimals);
  } else {
    if (type === 'TokenHolder' && HOLDER_TOKEN_FIELDS.has(key)) token = context.holdersOf;
    else if (key === 'amount' && TOKEN_RESULT_TYPES.has(type)) token = movedToken(parent);
    if (token === undefined || !/^\d+$/.test(item)) return undefined;
    base = BigInt(item);
    meta = context.tokens.get(token);
    if (meta === undefined) return { text: item, note: `base units of token ${token}` };
  }
  if (base === undefined) return undefined;
  return {
    text: `${formatTokenUnits(base, meta.decimals)} ${meta.symbol}`,
    note: `${base} base units`,
  };
}

/** An infoToken result's own symbol and decimal places. */
function tokenMetaOf(info: { [key: string]: Json }): TokenMeta | undefined {
  const decimals = info.decimal;
  if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0) return undefined;
  if (decimals > 18 || typeof info.symbol !== 'string') return undefined;
  return { symbol: unquote(info.symbol), decimals };
}

/**
 * Base units of a decimal text such as infoToken's `totalAmount` ("1000.00"), exactly: fraction
 * digits beyond `decimals` must be zeros. Undefined for anything else.
 */
function baseUnitsOf(text: string, decimals: number): bigint | undefined {
  const match = /^(\d+)(?:\.(\d*))?$/.exec(text.trim());
  if (match === null) return undefined;
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) return undefined;
  return BigInt(match[1]! + fraction.padEnd(decimals, '0'));
}

/** Token units with only the significant fraction digits: 15000n at 4 places -> "1.5". */
export function formatTokenUnits(baseUnits: bigint, decimals: number): string {
  const text = formatUnits(baseUnits, decimals);
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

function isEmpty(value: Json[] | { [key: string]: Json }): boolean {
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
}

function annotation(key: string, item: Json, parent: { [key: string]: Json }, type: string) {
  if (typeof item === 'string' && /^\d+$/.test(item) && isCoinField(key, parent, type)) {
    return `${formatCoins(BigInt(item))} coins`;
  }
  if (TIME_FIELDS.has(key) && isUnixSeconds(item)) {
    return new Date(Number(item) * 1000).toISOString().replace('T', ' ').replace('.000Z', ' UTC');
  }
  return undefined;
}

function isCoinField(key: string, parent: { [key: string]: Json }, type: string): boolean {
  if (COIN_FIELDS[type]?.includes(key)) return true;
  return key === 'amount' && TRANSFER_AMOUNT_TYPES.has(type) && parent.optype === TRANSFER_OPTYPE;
}

/** Seconds between 2001 and 2286: a Unix time, not a block number or a counter. */
function isUnixSeconds(value: Json): boolean {
  const seconds = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof seconds === 'number' && seconds >= 1e9 && seconds < 1e10;
}

/** Whole coins with only the significant fraction digits: 1500000000000000000n -> "1.5". */
export function formatCoins(baseUnits: bigint): string {
  return formatTokenUnits(baseUnits, COIN_DECIMALS);
}
