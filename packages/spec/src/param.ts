/**
 * Param builders of the method catalogue. A `Param` is plain data (kind, bounds, optionality,
 * secrecy) plus a phantom TypeScript type, so `ParamsOf<M>` can infer a method's params object from
 * the catalogue entry. The server builds its coercion tables from these; the SDK derives its types.
 */

/** How a param may be absent: required, optional without a value, or optional with a default. */
export type Presence = 'required' | 'optional' | 'defaulted';

export type ParamKind =
  | 'string'
  | 'integer'
  | 'boolean'
  | 'amount'
  | 'hex'
  | 'wallet'
  | 'object'
  | 'enum';

export interface ParamBounds {
  /** integer: smallest accepted value. */
  readonly min?: number;
  /** integer: largest accepted value. */
  readonly max?: number;
  /** string: shortest accepted length in UTF-16 code units. */
  readonly minLength?: number;
  /** string: longest accepted length in UTF-16 code units. */
  readonly maxLength?: number;
  /** hex: most bytes accepted. */
  readonly maxBytes?: number;
  /** hex: exact number of bytes required. */
  readonly exactBytes?: number;
  /** enum: the accepted values. */
  readonly values?: readonly string[];
  /**
   * wallet: an Ethereum-style address (40 hex digits, `0x` optional) is accepted too, for the key file
   * made elsewhere that gives it (its owner knows that address, not the chain's).
   */
  readonly ethereum?: boolean;
}

export class Param<T, P extends Presence = 'required'> {
  /** Phantom: the TypeScript type of the coerced value. Never set at run time. */
  declare readonly valueType: T;
  readonly kind: ParamKind;
  readonly presence: P;
  /** The value filled in when the param is omitted (only when presence is 'defaulted'). */
  readonly defaultValue: T | undefined;
  /** Secret params (passphrases, keys) are never logged, counted or echoed in error messages. */
  readonly isSecret: boolean;
  readonly bounds: ParamBounds;

  constructor(
    kind: ParamKind,
    bounds: ParamBounds,
    presence: P,
    defaultValue: T | undefined,
    isSecret: boolean,
  ) {
    this.kind = kind;
    this.bounds = bounds;
    this.presence = presence;
    this.defaultValue = defaultValue;
    this.isSecret = isSecret;
  }

  get isOptional(): boolean {
    return this.presence !== 'required';
  }

  /** The param may be omitted; with a default, the default is filled in before the handler runs. */
  optional(): Param<T, 'optional'>;
  optional(defaultValue: T): Param<T, 'defaulted'>;
  optional(...args: [] | [T]): Param<T, 'optional'> | Param<T, 'defaulted'> {
    if (args.length === 0) {
      return new Param<T, 'optional'>(this.kind, this.bounds, 'optional', undefined, this.isSecret);
    }
    return new Param<T, 'defaulted'>(this.kind, this.bounds, 'defaulted', args[0], this.isSecret);
  }

  /** Marks the param as a secret (passphrase, private key). */
  secret(): Param<T, P> {
    return new Param<T, P>(this.kind, this.bounds, this.presence, this.defaultValue, true);
  }
}

/** Any param, whatever its value type and presence. */
// biome-ignore lint/suspicious/noExplicitAny: the catalogue holds params of every value type.
export type AnyParam = Param<any, Presence>;

export type ParamValue<S> = S extends Param<infer T, Presence> ? T : never;

export const p = {
  /** A JSON string (numbers are refused). */
  string(bounds: { minLength?: number; maxLength?: number } = {}): Param<string> {
    return new Param<string>('string', bounds, 'required', undefined, false);
  },
  /** A JSON safe integer, or a decimal string of one; min/max checked. */
  integer(bounds: { min?: number; max?: number } = {}): Param<number> {
    return new Param<number>('integer', bounds, 'required', undefined, false);
  },
  /** true/false, or exactly "true"/"false". */
  boolean(): Param<boolean> {
    return new Param<boolean>('boolean', {}, 'required', undefined, false);
  },
  /**
   * A decimal amount string (whole units with an optional fraction) or a non-negative finite JSON
   * number; stays a string, since precision is a domain rule.
   */
  amount(): Param<string> {
    return new Param<string>('amount', {}, 'required', undefined, false);
  },
  /** Hex with an even number of digits, optional 0x; normalised to lowercase without 0x. */
  hex(bounds: { maxBytes?: number; exactBytes?: number } = {}): Param<string> {
    return new Param<string>('hex', bounds, 'required', undefined, false);
  },
  /**
   * A wallet or token address: 2 letters then 46 hex digits (shape only; checksum is the domain's);
   * with `ethereum`, also the 0x address of a key file made elsewhere.
   */
  wallet(bounds: { ethereum?: boolean } = {}): Param<string> {
    return new Param<string>('wallet', bounds, 'required', undefined, false);
  },
  /** A plain JSON object; its fields are the handler's to check. */
  object<T extends object = Record<string, unknown>>(): Param<T> {
    return new Param<T>('object', {}, 'required', undefined, false);
  },
  /** One string of a fixed set. */
  oneOf<const V extends readonly string[]>(values: V): Param<V[number]> {
    return new Param<V[number]>('enum', { values }, 'required', undefined, false);
  },
} as const;

/**
 * Phantom marker of a method's result type, with the result's documented name. `T` is what the
 * handler returns; `C`, what a client is told it receives, when the catalogue knows more than the
 * handler's type says (operations as a union by optype, operation-types.ts): the same JSON.
 */
export interface ResultMarker<T, C = T> {
  readonly name: string;
  /** Phantom: never set at run time. */
  readonly type?: T;
  /** Phantom: never set at run time. */
  readonly clientType?: C;
}

export function result<T, C = T>(name: string): ResultMarker<T, C> {
  return { name };
}
