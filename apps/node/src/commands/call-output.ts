/**
 * The human-readable form of a JSON-RPC result for `chain-node call`: scalars bare (as bitcoin-cli
 * prints them), objects and arrays as indented `key  value` lines, native-coin amounts in base
 * units followed by their value in coins, Unix times followed by their UTC date.
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

/** Fields holding Unix times in seconds. */
const TIME_FIELDS = new Set(['time', 'timestamp', 'startTimestamp']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The result as text for a terminal; `resultName` is the catalogue's name of its type. */
export function formatResult(result: unknown, resultName: string): string {
  const type = resultName.replace(/\[\]$/, '');
  const value = result as Json;
  if (!isContainer(value)) return scalar(value);
  return lines(value, type, '').join('\n');
}

function isContainer(value: Json): value is Json[] | { [key: string]: Json } {
  return typeof value === 'object' && value !== null;
}

function scalar(value: Json): string {
  if (typeof value === 'string') return value === '' ? '""' : value;
  return JSON.stringify(value);
}

function lines(value: Json[] | { [key: string]: Json }, type: string, indent: string): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${indent}[]`];
    return value.flatMap((item) => {
      if (!isContainer(item)) return [`${indent}- ${scalar(item)}`];
      const [first = '', ...rest] = lines(item, type, `${indent}  `);
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
      // Nested objects (senders, netstats, ...) have no coin fields of the parent type.
      out.push(...lines(item, '', `${indent}  `));
      continue;
    }
    const text = isContainer(item) ? (Array.isArray(item) ? '[]' : '{}') : scalar(item);
    const note = annotation(key, item, value, type);
    out.push(`${indent}${key.padEnd(width)}  ${text}${note ? `  (${note})` : ''}`.trimEnd());
  }
  return out;
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
  return formatUnits(baseUnits, COIN_DECIMALS).replace(/\.?0+$/, '');
}
