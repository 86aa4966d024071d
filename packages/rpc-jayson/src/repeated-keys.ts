/**
 * Keys repeated inside one JSON object of a request body. JSON.parse keeps the last of them without
 * a word, so `{"wallet":"x","wallet":"y"}` would answer for y; the dispatcher refuses such a request
 * instead, naming the key (the spec's repeated `mine` of blockchainStart is the one key a method
 * declares, `duplicateKeys`, and is read by duplicate-keys.ts).
 *
 * Cheap when there is none, which is nearly always: outside strings, every `:` of JSON text is one
 * object member, so a body with no more colons in all than JSON.parse's value has members holds no
 * repeated key; only a body where the two counts differ is scanned, once, without recursion (any
 * depth JSON.parse took).
 */

/** One repeated key: where (the keys and indexes from the request object down) and which. */
export interface RepeatedKey {
  /** `[]`: a member of the request object itself; `['params']`: a param; deeper: inside a param. */
  readonly path: readonly (string | number)[];
  readonly key: string;
}

/** The repeated keys of each request of a body: by batch index, or under `undefined` for one request. */
export type RepeatedKeys = ReadonlyMap<number | undefined, readonly RepeatedKey[]>;

const NONE: RepeatedKeys = new Map();

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Members of JSON.parse's value, every level (iterative: JSON.parse accepts any depth). */
function memberCount(value: unknown): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null) continue;
    if (Array.isArray(next)) {
      for (const item of next) if (typeof item === 'object' && item !== null) pending.push(item);
      continue;
    }
    for (const key in next) {
      count++;
      const item = (next as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) pending.push(item);
    }
  }
  return count;
}

/** Every `:` of the text, inside strings or not: at least the members of the text. */
function colonCount(text: string): number {
  let count = 0;
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) count++;
  return count;
}

/** The index of the quote that closes the string opened at `open` (valid JSON). */
function stringEnd(body: string, open: number): number {
  let close = body.indexOf('"', open + 1);
  for (;;) {
    if (close === -1) return body.length;
    let backslashes = 0;
    while (body.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return close;
    close = body.indexOf('"', close + 1);
  }
}

interface ObjectFrame {
  readonly object: true;
  /** Where the frame sits in its parent: a key, an array index, or undefined for the root. */
  readonly at: string | number | undefined;
  readonly keys: Set<string>;
  expectKey: boolean;
  lastKey: string | undefined;
}

interface ArrayFrame {
  readonly object: false;
  readonly at: string | number | undefined;
  index: number;
}

type Frame = ObjectFrame | ArrayFrame;

/** Where the child opened now sits in `parent`. */
function childPosition(parent: Frame | undefined): string | number | undefined {
  if (parent === undefined) return undefined;
  return parent.object ? parent.lastKey : parent.index;
}

/**
 * The repeated keys of valid JSON `body`, per request: the request objects are the root (index
 * undefined) or the root array's elements (a batch).
 */
function scan(body: string): RepeatedKeys {
  const found = new Map<number | undefined, RepeatedKey[]>();
  const stack: Frame[] = [];
  const batch = body.trimStart().charCodeAt(0) === OPEN_ARRAY;
  for (let i = 0; i < body.length; i++) {
    const code = body.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (code === QUOTE) {
      const end = stringEnd(body, i);
      if (top?.object && top.expectKey) {
        const raw = body.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (top.keys.has(key)) record(found, stack, batch, key);
        else top.keys.add(key);
        top.lastKey = key;
        top.expectKey = false;
      }
      i = end;
    } else if (code === OPEN_OBJECT) {
      stack.push({
        object: true,
        at: childPosition(top),
        keys: new Set(),
        expectKey: true,
        lastKey: undefined,
      });
    } else if (code === OPEN_ARRAY) {
      stack.push({ object: false, at: childPosition(top), index: 0 });
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      stack.pop();
    } else if (code === COMMA && top !== undefined) {
      if (top.object) top.expectKey = true;
      else top.index++;
    } else if (code === COLON && top?.object) {
      top.expectKey = false;
    }
  }
  return found;
}

/** Notes `key`, repeated in the innermost object of `stack`, under its request. */
function record(
  found: Map<number | undefined, RepeatedKey[]>,
  stack: readonly Frame[],
  batch: boolean,
  key: string,
): void {
  // A batch's root is its array; a request object sits at its index in it.
  const requestDepth = batch ? 1 : 0;
  if (stack.length <= requestDepth) return;
  const request = batch ? (stack[1]!.at as number) : undefined;
  const path = stack.slice(requestDepth + 1).map((frame) => frame.at!);
  const list = found.get(request);
  if (list === undefined) found.set(request, [{ path, key }]);
  else list.push({ path, key });
}

/** The repeated keys of a body JSON.parse read as `parsed`: none at the cost of two counts, usually. */
export function repeatedKeys(body: string, parsed: unknown): RepeatedKeys {
  if (colonCount(body) === memberCount(parsed)) return NONE;
  return scan(body);
}

/** `data.items[0].wallet`: a path and key as a param name a message can show. */
export function keyPathText(path: readonly (string | number)[], key: string): string {
  let text = '';
  for (const part of [...path, key]) {
    text += typeof part === 'number' ? `[${part}]` : text === '' ? part : `.${part}`;
  }
  return text;
}
