/**
 * Param coercion at the edge. Tables are compiled once per method from the catalogue; a request's
 * params (omitted, a named object, or a positional array in catalogue order) become the object the
 * handler receives, or an InvalidParamsError naming the param and why. Secret values are never
 * echoed.
 *
 * A JSON number is taken exactly as written: it arrives as a JS number only when that number gives
 * back its text, else as a JsonNumberText (exact-json.ts). Amounts and integers read that text as
 * they read the same digits in a string, so nothing is ever rounded.
 *
 * The edges, one rule each for every method (docs/rpc.md, "Params"):
 * - no number param takes a sign: `-0` (a string or a JSON number) is refused like `-1`, by every
 *   integer param as by every amount;
 * - a string is well-formed Unicode (an unpaired UTF-16 surrogate has no UTF-8 form and is
 *   refused), and its length limits count characters: Unicode code points, so an emoji is one.
 */
import { type AnyParam, echoed, type MethodSpec, type ParamBounds } from '@chain/spec';
import { didYouMeanHint } from './did-you-mean.js';
import { InvalidParamsError } from './errors.js';
import { JsonNumberText } from './exact-json.js';

const INTEGER_STRING = /^-?\d+$/;
const AMOUNT_STRING = /^\d+(\.\d+)?$/;
const HEX_STRING = /^(0x)?[0-9a-fA-F]*$/;
const WALLET_STRING = /^[A-Za-z]{2}[0-9a-fA-F]{46}$/;
const ETHEREUM_ADDRESS_STRING = /^(0x)?[0-9a-fA-F]{40}$/;
const MAX_ECHO_LENGTH = 40;
/** `-0`, `-00`, ... as a string or a JSON number's text. */
const NEGATIVE_ZERO = /^-0+$/;
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

type Coerce = (value: unknown) => unknown;

interface CompiledParam {
  readonly name: string;
  readonly required: boolean;
  readonly hasDefault: boolean;
  readonly defaultValue: unknown;
  readonly coerce: Coerce;
}

export interface ParamTable {
  readonly params: readonly CompiledParam[];
  readonly names: readonly string[];
  readonly byName: ReadonlyMap<string, CompiledParam>;
}

/** A short, safe rendering of a refused value for an error message. */
function describe(value: unknown): string {
  let text: string;
  try {
    text = value instanceof JsonNumberText ? value.text : (JSON.stringify(value) ?? String(value));
  } catch {
    text = typeof value;
  }
  return echoed(text, MAX_ECHO_LENGTH);
}

function refuse(name: string, secret: boolean, why: string, value: unknown): never {
  const got = secret ? '' : `, got ${describe(value)}`;
  throw new InvalidParamsError(`parameter '${name}' ${why}${got}`, name);
}

function rangeText(bounds: ParamBounds): string {
  const { min, max } = bounds;
  if (min !== undefined && max !== undefined) return `between ${min} and ${max}`;
  if (min !== undefined) return `at least ${min}`;
  return `at most ${max}`;
}

function integerCoercer(name: string, secret: boolean, bounds: ParamBounds): Coerce {
  const min = bounds.min ?? Number.MIN_SAFE_INTEGER;
  const max = bounds.max ?? Number.MAX_SAFE_INTEGER;
  const bounded = bounds.min !== undefined || bounds.max !== undefined;
  return (value) => {
    if (
      Object.is(value, -0) ||
      (typeof value === 'string' && NEGATIVE_ZERO.test(value)) ||
      (value instanceof JsonNumberText && NEGATIVE_ZERO.test(value.text))
    ) {
      return refuse(name, secret, 'must be an integer without a sign (write 0, not -0)', value);
    }
    let n: number;
    if (typeof value === 'number' && Number.isInteger(value)) n = value;
    else if (typeof value === 'string' && INTEGER_STRING.test(value)) n = Number(value);
    else if (value instanceof JsonNumberText && INTEGER_STRING.test(value.text)) {
      n = Number(value.text); // more digits than a safe integer has: refused just below
    } else return refuse(name, secret, 'must be an integer', value);
    if (!Number.isSafeInteger(n)) return refuse(name, secret, 'must be a safe integer', value);
    if (bounded && (n < min || n > max)) {
      return refuse(name, secret, `must be ${rangeText(bounds)}`, value);
    }
    return n;
  };
}

function booleanCoercer(name: string, secret: boolean): Coerce {
  return (value) => {
    if (value === true || value === 'true') return true;
    if (value === false || value === 'false') return false;
    return refuse(name, secret, 'must be a boolean (true or false)', value);
  };
}

function stringCoercer(name: string, secret: boolean, bounds: ParamBounds): Coerce {
  const minLength = bounds.minLength ?? 0;
  const maxLength = bounds.maxLength ?? Number.POSITIVE_INFINITY;
  return (value) => {
    if (typeof value !== 'string') return refuse(name, secret, 'must be a string', value);
    const unpaired = UNPAIRED_SURROGATE.exec(value);
    if (unpaired !== null) {
      // The value itself is not echoed: JSON would carry the lone surrogate back.
      throw new InvalidParamsError(
        `parameter '${name}' must be well-formed Unicode text: it holds an unpaired UTF-16 surrogate at index ${unpaired.index}`,
        name,
      );
    }
    // UTF-16 units are at least the code points and at most twice them: count only when it matters.
    const length =
      value.length < minLength || value.length > maxLength ? codePoints(value) : value.length;
    if (length < minLength) {
      const why =
        minLength === 1 ? 'must not be empty' : `must be at least ${minLength} characters`;
      return refuse(name, secret, why, value);
    }
    if (length > maxLength) {
      return refuse(name, secret, `must be at most ${maxLength} characters`, value);
    }
    return value;
  };
}

/** Unicode code points of a well-formed string (a surrogate pair is one). */
function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * An amount stays the decimal text the client wrote (precision is a domain rule): a string, or a
 * JSON number's text, exactly (a JS number here is one whose String() is that text).
 */
function amountCoercer(name: string, secret: boolean): Coerce {
  return (value) => {
    let text: string;
    if (typeof value === 'string') text = value;
    else if (value instanceof JsonNumberText) text = value.text;
    else if (
      typeof value === 'number' &&
      Number.isFinite(value) &&
      value >= 0 &&
      !Object.is(value, -0)
    )
      text = String(value);
    else return refuse(name, secret, 'must be a non-negative decimal amount', value);
    if (!AMOUNT_STRING.test(text)) {
      return refuse(name, secret, 'must be a non-negative decimal amount', value);
    }
    return text;
  };
}

function hexCoercer(name: string, secret: boolean, bounds: ParamBounds): Coerce {
  const { maxBytes, exactBytes } = bounds;
  return (value) => {
    if (typeof value !== 'string' || !HEX_STRING.test(value)) {
      return refuse(name, secret, 'must be a hex string', value);
    }
    const digits = value.startsWith('0x') ? value.slice(2) : value;
    if (digits.length % 2 !== 0) {
      return refuse(name, secret, 'must have an even number of hex digits', value);
    }
    const bytes = digits.length / 2;
    if (exactBytes !== undefined && bytes !== exactBytes) {
      return refuse(name, secret, `must be exactly ${exactBytes} bytes`, value);
    }
    if (maxBytes !== undefined && bytes > maxBytes) {
      return refuse(name, secret, `must be at most ${maxBytes} bytes`, value);
    }
    return digits.toLowerCase();
  };
}

function walletCoercer(name: string, secret: boolean, bounds: ParamBounds): Coerce {
  const ethereum = bounds.ethereum === true;
  const why = ethereum
    ? "must be a wallet address (2 letters and 46 hex digits) or a key file's Ethereum address (40 hex digits, 0x optional)"
    : 'must be a wallet address (2 letters and 46 hex digits)';
  return (value) => {
    if (
      typeof value !== 'string' ||
      !(WALLET_STRING.test(value) || (ethereum && ETHEREUM_ADDRESS_STRING.test(value)))
    ) {
      return refuse(name, secret, why, value);
    }
    return value;
  };
}

/** A copy of `value` with each JsonNumberText as its text (a string), or `value` itself if none. */
function numbersAsText(value: unknown): unknown {
  if (value instanceof JsonNumberText) return value.text;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const items = value.map(numbersAsText);
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  let copy: Record<string, unknown> | undefined;
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    const inner = numbersAsText(object[key]);
    if (inner !== object[key]) {
      copy ??= { ...object };
      Object.defineProperty(copy, key, {
        value: inner,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return copy ?? value;
}

/** The handler checks an object's fields; a number JS cannot hold exactly reaches it as its text. */
function objectCoercer(name: string, secret: boolean): Coerce {
  return (value) => {
    if (
      typeof value !== 'object' ||
      value === null ||
      Array.isArray(value) ||
      value instanceof JsonNumberText
    ) {
      return refuse(name, secret, 'must be an object', value);
    }
    return numbersAsText(value);
  };
}

function enumCoercer(name: string, secret: boolean, bounds: ParamBounds): Coerce {
  const values = new Set(bounds.values ?? []);
  const why = `must be one of ${[...values].join(', ')}`;
  return (value) => {
    if (typeof value !== 'string' || !values.has(value)) return refuse(name, secret, why, value);
    return value;
  };
}

export function compileParam(name: string, param: AnyParam): CompiledParam {
  const secret = param.isSecret;
  const { bounds } = param;
  let coerce: Coerce;
  switch (param.kind) {
    case 'integer':
      coerce = integerCoercer(name, secret, bounds);
      break;
    case 'boolean':
      coerce = booleanCoercer(name, secret);
      break;
    case 'string':
      coerce = stringCoercer(name, secret, bounds);
      break;
    case 'amount':
      coerce = amountCoercer(name, secret);
      break;
    case 'hex':
      coerce = hexCoercer(name, secret, bounds);
      break;
    case 'wallet':
      coerce = walletCoercer(name, secret, bounds);
      break;
    case 'object':
      coerce = objectCoercer(name, secret);
      break;
    case 'enum':
      coerce = enumCoercer(name, secret, bounds);
      break;
  }
  return {
    name,
    required: param.presence === 'required',
    hasDefault: param.presence === 'defaulted',
    defaultValue: param.defaultValue,
    coerce,
  };
}

export function compileParamTable(spec: MethodSpec): ParamTable {
  const params = Object.entries(spec.params).map(([name, param]) => compileParam(name, param));
  return {
    params,
    names: params.map((param) => param.name),
    byName: new Map(params.map((param) => [param.name, param])),
  };
}

function fillMissing(table: ParamTable, out: Record<string, unknown>): Record<string, unknown> {
  for (const param of table.params) {
    if (out[param.name] !== undefined) continue;
    if (param.required) {
      throw new InvalidParamsError(`missing required parameter '${param.name}'`, param.name);
    }
    if (param.hasDefault) out[param.name] = param.defaultValue;
  }
  return out;
}

/**
 * The handler's params from the request's `params` (undefined, a plain object or an array; the
 * caller has refused any other type). `null` for an optional param means omitted.
 */
export function coerceParams(table: ParamTable, raw: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (raw === undefined) return fillMissing(table, out);
  if (Array.isArray(raw)) {
    if (raw.length > table.params.length) {
      throw new InvalidParamsError(
        `too many positional params: got ${raw.length}, the method takes ${table.params.length}`,
      );
    }
    for (let i = 0; i < raw.length; i++) {
      const param = table.params[i]!;
      const value: unknown = raw[i];
      if (value === null && !param.required) continue;
      out[param.name] = param.coerce(value);
    }
    return fillMissing(table, out);
  }
  const named = raw as Record<string, unknown>;
  for (const key in named) {
    const param = table.byName.get(key);
    if (param === undefined) {
      throw new InvalidParamsError(
        `unknown parameter '${echoed(key, MAX_ECHO_LENGTH)}'${didYouMeanHint(key, table.names)}`,
        key.length > MAX_ECHO_LENGTH ? undefined : key,
      );
    }
    const value = named[key];
    if (value === null && !param.required) continue;
    out[key] = param.coerce(value);
  }
  return fillMissing(table, out);
}
