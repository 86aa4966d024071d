/**
 * Request bodies read without losing a digit. JSON.parse turns every number into a JS number, which
 * rounds 12345678901234567891 to 12345678901234567000 and 0.000000000000000001 to 1e-18. A JSON
 * number is taken exactly as written instead: a number whose text a JS number gives back unchanged
 * (`String(Number(text)) === text`, as for 7, 1.5 or 100) stays a JS number; any other (too many
 * digits, an exponent, a trailing zero in a fraction, -0) becomes a JsonNumberText holding its text.
 *
 * JSON.parse still reads every body first (it validates, and it is fast). Only a request that
 * carries a number JSON.parse may have changed (a number anywhere in its params, an id that is not a
 * safe integer) has the body scanned for such numbers, once per body, and only a body that holds one
 * is read again from its syntax tree. A request without numbers in its params (most reads, batches
 * of them included) costs a look at its params and nothing more.
 */
import { type Node as JsonNode, parseTree } from 'jsonc-parser';
import { type RepeatedKey, type RepeatedKeys, repeatedKeys } from './repeated-keys.js';

/** A JSON number of a request that a JS number would not hold exactly: its text as written. */
export class JsonNumberText {
  constructor(readonly text: string) {}
}

/** The syntax tree of a body JSON.parse accepted, parsed at most once per HTTP request. */
export class LazyTree {
  private tree: JsonNode | undefined;
  private parsed = false;

  constructor(private readonly body: string) {}

  get text(): string {
    return this.body;
  }

  /** The root node; undefined when the body is nested too deeply for the (recursive) parser. */
  get root(): JsonNode | undefined {
    if (!this.parsed) {
      this.parsed = true;
      try {
        this.tree = parseTree(this.body);
      } catch {
        // The tree parser recurses and overflows the stack on nesting that JSON.parse accepts.
        this.tree = undefined;
      }
    }
    return this.tree;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
/** Digits an integer literal may have and still be read exactly by a JS number, whatever they are. */
const EXACT_INTEGER_DIGITS = 15;

function isDigit(code: number): boolean {
  return code >= DIGIT_0 && code <= DIGIT_9;
}

function isNumberChar(code: number): boolean {
  // digits, '.', 'e', 'E', '+', '-': the characters of a JSON number token
  return (
    isDigit(code) ||
    code === 0x2e ||
    code === 0x65 ||
    code === 0x45 ||
    code === 0x2b ||
    code === MINUS
  );
}

/** Whether a JS number gives back exactly the text of this JSON number token. */
function numberTextIsExact(text: string): boolean {
  return String(Number(text)) === text;
}

/** The index of the quote that closes the string opened at `open`. */
function stringEnd(body: string, open: number): number {
  let close = body.indexOf('"', open + 1);
  for (;;) {
    if (close === -1) return body.length; // not valid JSON: cannot happen after JSON.parse
    let backslashes = 0;
    while (body.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return close;
    close = body.indexOf('"', close + 1);
  }
}

/**
 * Calls `inexact(start, end)` for each number token of valid JSON `body` that a JS number does not
 * reproduce, until it returns true. Strings are skipped whole (a string's digits are not numbers);
 * outside strings only numbers have digits. An integer literal of at most 15 digits (ids, most
 * integers) is exact without being converted.
 */
function scanInexactNumbers(body: string, inexact: (start: number, end: number) => boolean): void {
  const length = body.length;
  for (let i = 0; i < length; i++) {
    const code = body.charCodeAt(i);
    if (code === QUOTE) {
      i = stringEnd(body, i);
    } else if (code === MINUS || isDigit(code)) {
      const start = i;
      const first = code === MINUS ? i + 1 : i;
      let end = first;
      while (end < length && isDigit(body.charCodeAt(end))) end++;
      let plainInteger = true;
      while (end < length && isNumberChar(body.charCodeAt(end))) {
        plainInteger = false;
        end++;
      }
      const digits = end - first;
      const negativeZero = code === MINUS && digits === 1 && body.charCodeAt(first) === DIGIT_0;
      const mayBeInexact = !plainInteger || digits > EXACT_INTEGER_DIGITS || negativeZero;
      if (mayBeInexact && !numberTextIsExact(body.slice(start, end)) && inexact(start, end)) return;
      i = end - 1;
    }
  }
}

/** Whether valid JSON `body` holds a number token a JS number does not reproduce. */
export function hasInexactNumber(body: string): boolean {
  let found = false;
  scanInexactNumbers(body, () => {
    found = true;
    return true;
  });
  return found;
}

/**
 * Valid JSON `text` with each number a JS number would not reproduce written as a string of its
 * text, so that it survives JSON.parse and JSON.stringify unchanged (`chain-node call --params`).
 * The server reads such a string as it reads the number (amounts, integers, object fields).
 */
export function quoteInexactNumbers(text: string): string {
  let out = '';
  let copied = 0;
  scanInexactNumbers(text, (start, end) => {
    out += `${text.slice(copied, start)}"${text.slice(start, end)}"`;
    copied = end;
    return false;
  });
  return copied === 0 ? text : out + text.slice(copied);
}

/** Whether two request values are the same JSON value (numbers by their text). */
export function sameJsonValue(a: unknown, b: unknown): boolean {
  if (a instanceof JsonNumberText || b instanceof JsonNumberText) {
    return a instanceof JsonNumberText && b instanceof JsonNumberText && a.text === b.text;
  }
  if (typeof a !== 'object' || a === null) return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The value of a syntax-tree node, inexact numbers as JsonNumberText (recursive: may overflow). */
export function exactNodeValue(node: JsonNode, body: string): unknown {
  switch (node.type) {
    case 'object': {
      const object: Record<string, unknown> = {};
      for (const property of node.children ?? []) {
        const [key, value] = property.children ?? [];
        if (key === undefined || value === undefined) continue;
        // As JSON.parse: an own property even for `__proto__`, and the last of repeated keys.
        Object.defineProperty(object, key.value as string, {
          value: exactNodeValue(value, body),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return object;
    }
    case 'array':
      return (node.children ?? []).map((child) => exactNodeValue(child, body));
    case 'number': {
      const text = body.slice(node.offset, node.offset + node.length);
      return numberTextIsExact(text) ? Number(text) : new JsonNumberText(text);
    }
    default:
      return node.value;
  }
}

/**
 * Whether JSON.parse's `value` holds a number, which may then differ from the number as written:
 * a look at a request's params (iterative: JSON.parse accepts any depth).
 */
export function holdsNumber(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return typeof value === 'number';
  const inner: object[] = [];
  for (let next: object | undefined = value; next !== undefined; next = inner.pop()) {
    if (Array.isArray(next)) {
      for (const item of next) if (isNumberElseKeep(item, inner)) return true;
    } else {
      const record = next as Record<string, unknown>;
      for (const key in record) if (isNumberElseKeep(record[key], inner)) return true;
    }
  }
  return false;
}

/** True for a number; an object or array is kept in `inner` to be looked into. */
function isNumberElseKeep(item: unknown, inner: object[]): boolean {
  if (typeof item === 'number') return true;
  if (typeof item === 'object' && item !== null) inner.push(item);
  return false;
}

/**
 * One HTTP request body: JSON.parse's value, and on demand the same value with every number exact
 * and the syntax tree (for repeated keys), each made at most once.
 */
export class RequestBody {
  private tree: LazyTree | undefined;
  /** undefined: not read yet; null: too deep to read exactly. */
  private exactRead: { value: unknown } | null | undefined;
  private repeated: RepeatedKeys | undefined;

  constructor(
    readonly text: string,
    readonly parsed: unknown,
  ) {}

  /** The keys repeated in one object of request `batchIndex` (undefined: the one request). */
  repeatedKeys(batchIndex: number | undefined): readonly RepeatedKey[] {
    this.repeated ??= repeatedKeys(this.text, this.parsed);
    return this.repeated.get(batchIndex) ?? [];
  }

  get syntaxTree(): LazyTree {
    this.tree ??= new LazyTree(this.text);
    return this.tree;
  }

  /**
   * The body's value with every number exact: JSON.parse's own when the body holds no number a JS
   * number changes, else read again from the syntax tree; undefined when the body is nested too
   * deeply for that (never answered from rounded numbers).
   */
  exact(): { value: unknown } | undefined {
    if (this.exactRead === undefined) this.exactRead = this.readExactly();
    return this.exactRead ?? undefined;
  }

  private readExactly(): { value: unknown } | null {
    if (!hasInexactNumber(this.text)) return { value: this.parsed };
    const root = this.syntaxTree.root;
    if (root === undefined) return null;
    try {
      return { value: exactNodeValue(root, this.text) };
    } catch (error) {
      if (error instanceof RangeError) return null;
      throw error;
    }
  }
}
