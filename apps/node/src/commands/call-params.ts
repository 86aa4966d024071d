/**
 * Turns `chain-node call` arguments (`key=value` words, bare positional values, `--params JSON`)
 * into the params of one JSON-RPC call, typed by the method catalogue: the shell hands over strings
 * only, and the catalogue says which of them are integers, booleans or objects.
 */
import { didYouMean } from '@chain/rpc-jayson/options';
import { type AnyParam, catalogue, isMethodName, METHOD_NAMES, type MethodName } from '@chain/spec';

/** A mistake in how the command was called (exit code 2); nothing was sent. */
export class CallUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallUsageError';
  }
}

type CallParams = Record<string, unknown> | unknown[];

/** The catalogue method a name means; a usage error with a suggestion when there is none. */
export function resolveMethod(name: string): MethodName {
  if (isMethodName(name)) return name;
  // The server's rule (edit distance 2, any case), then the methods whose name holds the one given.
  const closest = didYouMean(name, METHOD_NAMES);
  const lower = name.toLowerCase();
  const suggestions =
    closest !== undefined
      ? [closest]
      : METHOD_NAMES.filter((method) => lower.length >= 3 && method.toLowerCase().includes(lower));
  const hint =
    suggestions.length > 0
      ? `; did you mean ${suggestions.map((s) => `'${s}'`).join(' or ')}?`
      : '';
  throw new CallUsageError(
    `unknown method '${name}'${hint} (\`chain-node call --list\` shows every method)`,
  );
}

/**
 * The params object of a call: `--params` JSON first, then each `key=value` word (a key must be a
 * param of the method) and each bare value (the next param in catalogue order not named yet).
 * A `--params` array is sent as is (positional params), and then no words are allowed.
 */
export function buildCallParams(
  method: MethodName,
  words: readonly string[],
  paramsJson?: string,
): CallParams {
  const spec = catalogue[method].params as Readonly<Record<string, AnyParam>>;
  const names = Object.keys(spec);
  const base = paramsJson === undefined ? {} : parseParamsJson(paramsJson);
  if (Array.isArray(base)) {
    if (words.length > 0) {
      throw new CallUsageError('give params either as a --params JSON array or as words, not both');
    }
    return base;
  }

  const params: Record<string, unknown> = { ...base };
  const named = new Set<string>();
  const positional: string[] = [];
  for (const word of words) {
    const split = splitKeyValue(word, names);
    if (split === undefined) {
      positional.push(word);
      continue;
    }
    const [key, value] = split;
    if (named.has(key)) throw new CallUsageError(`'${key}' is given twice`);
    named.add(key);
    params[key] = coerceValue(key, spec[key]!, value);
  }

  const free = names.filter((name) => !named.has(name));
  if (positional.length > free.length) {
    throw new CallUsageError(
      `${method} takes ${describeCount(names.length)}${names.length > 0 ? ` (${names.join(', ')})` : ''}; got ${positional.length + named.size} values`,
    );
  }
  positional.forEach((value, index) => {
    const key = free[index]!;
    params[key] = coerceValue(key, spec[key]!, value);
  });
  return params;
}

/**
 * `--params` text with every number a JS number would round (`12345678901234567891`,
 * `0.000000000000000001`) written as a string of its text, which the node reads exactly as it reads
 * the number: JSON.parse here must not round it on the way. The front end package is loaded only
 * for this (other commands do not need it); text that is not JSON is left to buildCallParams.
 */
export async function exactParamsJson(text: string): Promise<string> {
  try {
    JSON.parse(text);
  } catch {
    return text;
  }
  const { quoteInexactNumbers } = await import('@chain/rpc-jayson');
  return quoteInexactNumbers(text);
}

function parseParamsJson(text: string): CallParams {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CallUsageError(`--params is not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null) {
    throw new CallUsageError('--params must be a JSON object (named params) or array (positional)');
  }
  return parsed as CallParams;
}

/**
 * `[key, value]` when the word is `key=value` with a key the method knows; undefined for a bare
 * value. A word like `a=b` whose `a` is no param name is refused rather than sent as a value:
 * it is far more often a mistyped name than a value containing `=`.
 */
function splitKeyValue(word: string, names: readonly string[]): [string, string] | undefined {
  const equals = word.indexOf('=');
  if (equals <= 0) return undefined;
  const key = word.slice(0, equals);
  if (names.includes(key)) return [key, word.slice(equals + 1)];
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return undefined;
  const sameCase = names.find((name) => name.toLowerCase() === key.toLowerCase());
  const known = names.length > 0 ? `; its params are ${names.join(', ')}` : '; it takes no params';
  throw new CallUsageError(
    `unknown param '${key}'${sameCase ? ` (did you mean '${sameCase}'?)` : ''}${known}`,
  );
}

const TRUE_WORDS = new Set(['true', 'yes', '1']);
const FALSE_WORDS = new Set(['false', 'no', '0']);

/** The JSON value of a command-line word for a param of the given kind. */
export function coerceValue(key: string, param: AnyParam, text: string): unknown {
  // Secret values are never repeated back, not even in an error message.
  const shown = param.isSecret ? 'the value given' : `'${text}'`;
  switch (param.kind) {
    case 'integer': {
      if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
        throw new CallUsageError(`${key} must be an integer, got ${shown}`);
      }
      return Number(text);
    }
    case 'boolean': {
      const word = text.toLowerCase();
      if (TRUE_WORDS.has(word)) return true;
      if (FALSE_WORDS.has(word)) return false;
      throw new CallUsageError(`${key} must be true or false, got ${shown}`);
    }
    case 'object': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        throw new CallUsageError(`${key} must be a JSON object, got ${shown}`);
      }
      return parsed;
    }
    default:
      // Amounts stay decimal strings (exact); hex, wallets, names and enums are strings.
      return text;
  }
}

function describeCount(count: number): string {
  if (count === 0) return 'no params';
  return count === 1 ? '1 param' : `${count} params`;
}

/** One line per method, grouped like the specification: `name key:kind [opt:kind=default]`. */
export function describeMethods(): string {
  const lines: string[] = [];
  let group = '';
  for (const name of METHOD_NAMES) {
    const spec = catalogue[name];
    if (spec.group !== group) {
      group = spec.group;
      lines.push(lines.length === 0 ? `${group}:` : `\n${group}:`);
    }
    const params = Object.entries(spec.params as Readonly<Record<string, AnyParam>>).map(
      ([key, param]) => describeParam(key, param),
    );
    lines.push(`  ${[name, ...params].join(' ')}`);
    lines.push(`      ${spec.summary}`);
  }
  return lines.join('\n');
}

/** A value of each kind that an example may show. */
const EXAMPLE_VALUES: Readonly<Record<AnyParam['kind'], string>> = {
  string: 'text',
  integer: '1',
  boolean: 'true',
  amount: '1.5',
  hex: '00ff',
  wallet: 'CH…',
  object: "'{}'",
  enum: '',
};

/** `chain-node call help METHOD`: one method's summary, params and an example call. */
export function describeMethod(name: string): string {
  const method = resolveMethod(name);
  const spec = catalogue[method];
  const params = Object.entries(spec.params as Readonly<Record<string, AnyParam>>);
  const lines = [`${method} (${spec.group}): ${spec.summary}`, ''];
  if (params.length === 0) lines.push('params: none');
  else {
    lines.push('params:');
    for (const [key, param] of params) lines.push(`  ${describeParam(key, param)}`);
  }
  const required = params.filter(([, param]) => param.presence === 'required');
  const example = required.map(([key, param]) => {
    const value =
      param.kind === 'enum' ? (param.bounds.values?.[0] ?? '') : EXAMPLE_VALUES[param.kind];
    return `${key}=${value}`;
  });
  lines.push('', 'example:', `  chain-node call ${[method, ...example].join(' ')}`);
  return lines.join('\n');
}

function describeParam(key: string, param: AnyParam): string {
  const kind = param.kind === 'enum' ? (param.bounds.values ?? []).join('|') : param.kind;
  if (param.presence === 'required') return `${key}=<${kind}>`;
  const fallback = param.presence === 'defaulted' ? `, default ${String(param.defaultValue)}` : '';
  return `[${key}=<${kind}${fallback}>]`;
}
