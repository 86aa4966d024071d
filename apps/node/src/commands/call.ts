/**
 * `chain-node call <method> key=value ...`: one JSON-RPC call from the shell, like bitcoin-cli or
 * cast. Exit codes scripts can rely on: 0 the call succeeded, 1 the node answered with a JSON-RPC
 * error, 2 the command was used wrongly (nothing was sent), 3 no JSON-RPC reply (cannot connect,
 * timeout, not a chain-node at that URL).
 */
import { readFile } from 'node:fs/promises';
import process from 'node:process';
import { createClient, isRpcError, TimeoutError, TransportError } from '@chain/rpc-client';
import { catalogue } from '@chain/spec';
import type { Argv, CommandModule } from 'yargs';
import { DEFAULT_NODE_OPTIONS, startFlagsTakenAlong } from '../options';
import { formatResult, type TokenBook, type TokenMeta, tokensToRead, unquote } from './call-output';
import {
  buildCallParams,
  CallUsageError,
  describeMethod,
  describeMethods,
  exactParamsJson,
  resolveMethod,
} from './call-params';

export const CALL_EXIT = { OK: 0, RPC_ERROR: 1, USAGE: 2, NO_REPLY: 3 } as const;

export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

/** The flags that say which node to call and with which credentials (call, watch). */
export interface EndpointArgs {
  'rpc-url'?: string;
  'rpc-host': string;
  'rpc-port': number;
  'rpc-user'?: string;
  'rpc-password'?: string;
  'rpc-cookie'?: string;
}

interface CallArgs extends EndpointArgs {
  method?: string;
  args?: string[];
  params?: string;
  stdin: boolean;
  json: boolean;
  list: boolean;
  timeout: number;
}

export interface JsonRpcError {
  code: number;
  message: string;
  data?: { reason?: unknown; param?: unknown };
}

/** No JSON-RPC reply arrived (exit code 3). */
export class NoReplyError extends Error {}

/**
 * Options of `chain-node start` that `call` and `watch` accept and ignore (options.ts,
 * startFlagsTakenAlong): all but the endpoint flags they declare themselves.
 */
export const START_OPTIONS_TAKEN_ALONG = startFlagsTakenAlong([
  'rpc-host',
  'rpc-port',
  'rpc-user',
  'rpc-password',
]);

/** Declares the EndpointArgs flags. */
export function endpointOptions<T>(args: Argv<T>) {
  return args
    .option('rpc-url', {
      type: 'string',
      describe: 'JSON-RPC endpoint (default http://<rpc-host>:<rpc-port>/)',
    })
    .option('rpc-host', {
      type: 'string',
      default: DEFAULT_NODE_OPTIONS.rpcHost,
      describe: 'node JSON-RPC host, when --rpc-url is not given',
    })
    .option('rpc-port', {
      type: 'number',
      default: DEFAULT_NODE_OPTIONS.rpcPort,
      describe: 'node JSON-RPC port, when --rpc-url is not given',
    })
    .option('rpc-user', { type: 'string', describe: 'JSON-RPC Basic auth user' })
    .option('rpc-password', { type: 'string', describe: 'JSON-RPC Basic auth password' })
    .option('rpc-cookie', {
      type: 'string',
      describe: 'cookie file of a node bound off loopback (<datadir>/.cookie)',
    });
}

function callOptions(args: Argv) {
  return endpointOptions(args)
    .positional('method', { type: 'string', describe: 'JSON-RPC method, e.g. getBlockInfo' })
    .positional('args', {
      type: 'string',
      array: true,
      describe: 'params as key=value, or bare values in the order of the method params',
    })
    .option('params', { type: 'string', describe: 'params as JSON (object or array)' })
    .option('stdin', {
      type: 'boolean',
      default: false,
      describe: 'read the params JSON from stdin (keeps passphrases out of argv and history)',
    })
    .option('json', {
      type: 'boolean',
      default: false,
      describe: 'print the result as one line of JSON (errors as JSON on stderr)',
    })
    .option('list', { type: 'boolean', default: false, describe: 'list every method and exit' })
    .option('timeout', {
      type: 'number',
      default: DEFAULT_CALL_TIMEOUT_MS,
      describe: 'milliseconds to wait for the reply',
    })
    .options(START_OPTIONS_TAKEN_ALONG)
    .example('$0 call getBlockCount', 'chain height')
    .example('$0 call help getBlockInfo', "one method's params and an example")
    .example('$0 call getBlockInfo 3', 'block 3 (bare values fill params in order)')
    .example('$0 call getWalletInfo wallet=CH…', 'a wallet, pretty printed')
    .example(
      'echo \'{"wallet":"CH…","passphrase":"…"}\' | $0 call unlockWallet --stdin',
      'keep a passphrase out of the shell history',
    )
    .epilog(
      'Exit codes: 0 ok, 1 JSON-RPC error (code, reason and message on stderr), 2 usage error, 3 no reply (cannot connect).',
    );
}

export const callCommand: CommandModule<object, CallArgs> = {
  command: 'call [method] [args..]',
  describe: 'call a JSON-RPC method of a running node (key=value params, --json for scripts)',
  builder: callOptions as unknown as CommandModule<object, CallArgs>['builder'],
  handler: async (argv) => {
    process.exitCode = await runCall(argv);
  },
};

async function runCall(argv: CallArgs): Promise<number> {
  try {
    if (argv.list) {
      process.stdout.write(`${describeMethods()}\n`);
      return CALL_EXIT.OK;
    }
    if (argv.method === undefined) {
      throw new CallUsageError('say which method to call, e.g. `chain-node call getBlockCount`');
    }
    if (argv.method === 'help') {
      const [name] = argv.args ?? [];
      if (name === undefined) {
        throw new CallUsageError('say which method, e.g. `chain-node call help getBlockInfo`');
      }
      process.stdout.write(`${describeMethod(name)}\n`);
      return CALL_EXIT.OK;
    }
    if (!Number.isFinite(argv.timeout) || argv.timeout <= 0) {
      throw new CallUsageError(`--timeout must be a positive number of milliseconds`);
    }
    const method = resolveMethod(argv.method);
    if (argv.stdin && argv.params !== undefined) {
      throw new CallUsageError('give the params JSON either with --params or on --stdin, not both');
    }
    const rawJson = argv.stdin ? await readStdin() : argv.params;
    const paramsJson = rawJson === undefined ? undefined : await exactParamsJson(rawJson);
    const params = buildCallParams(method, argv.args ?? [], paramsJson);
    const endpoint = await resolveEndpoint(argv);
    const reply = await postCall(endpoint, method, params, argv.timeout);
    if ('error' in reply) {
      process.stderr.write(
        argv.json
          ? `${JSON.stringify({ error: reply.error })}\n`
          : `${describeError(reply.error)}\n`,
      );
      return CALL_EXIT.RPC_ERROR;
    }
    const resultName = catalogue[method].result.name;
    const text = argv.json
      ? JSON.stringify(reply.result)
      : formatResult(
          reply.result,
          resultName,
          params,
          await readTokens(endpoint, tokensToRead(reply.result, resultName, params), argv.timeout),
        );
    process.stdout.write(`${text}\n`);
    return CALL_EXIT.OK;
  } catch (error) {
    if (error instanceof CallUsageError) {
      process.stderr.write(
        `chain-node: ${error.message}\nRun \`chain-node call --help\` for usage.\n`,
      );
      return CALL_EXIT.USAGE;
    }
    if (error instanceof NoReplyError) {
      process.stderr.write(`chain-node: ${error.message}\n`);
      return CALL_EXIT.NO_REPLY;
    }
    throw error;
  }
}

/**
 * The symbol and decimal places of each token (infoToken), for the pretty output of its amounts; a
 * token the node cannot tell about is left out (its amounts show in base units).
 */
async function readTokens(
  endpoint: Endpoint,
  tokens: readonly string[],
  timeoutMs: number,
): Promise<TokenBook> {
  const book = new Map<string, TokenMeta>();
  for (const token of tokens) {
    const reply = await postCall(endpoint, 'infoToken', { wallet: token }, timeoutMs).catch(
      () => undefined,
    );
    if (reply === undefined || !('result' in reply)) continue;
    const info = reply.result as { symbol?: unknown; decimal?: unknown };
    if (typeof info.decimal !== 'number' || !Number.isInteger(info.decimal)) continue;
    if (info.decimal < 0 || info.decimal > 18 || typeof info.symbol !== 'string') continue;
    book.set(token, { symbol: unquote(info.symbol), decimals: info.decimal });
  }
  return book;
}

/** `error 1030 WRONG_PASSPHRASE: wrong passphrase for CH… (param passphrase)`. */
export function describeError(error: JsonRpcError): string {
  const reason = typeof error.data?.reason === 'string' ? ` ${error.data.reason}` : '';
  const param = typeof error.data?.param === 'string' ? ` (param ${error.data.param})` : '';
  return `error ${error.code}${reason}: ${error.message}${param}`;
}

export interface Endpoint {
  url: string;
  /** Shown in messages: never with credentials. */
  shown: string;
  authorization?: string;
}

export async function resolveEndpoint(argv: EndpointArgs): Promise<Endpoint> {
  const text = argv['rpc-url'] ?? defaultUrl(argv['rpc-host'], argv['rpc-port']);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CallUsageError(`--rpc-url is not a URL: ${text}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CallUsageError(`--rpc-url must be http:// or https://, got ${url.protocol}`);
  }
  let credentials: { user: string; password: string } | undefined;
  if (url.username !== '' || url.password !== '') {
    // fetch refuses URLs with credentials: send them as Basic authentication instead.
    credentials = {
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    };
    url.username = '';
    url.password = '';
  }
  if (argv['rpc-user'] !== undefined) {
    credentials = { user: argv['rpc-user'], password: argv['rpc-password'] ?? '' };
  } else if (argv['rpc-cookie'] !== undefined) {
    credentials = await readCookie(argv['rpc-cookie']);
  }
  return {
    url: url.href,
    shown: url.href,
    ...(credentials
      ? {
          authorization: `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`,
        }
      : {}),
  };
}

/** A node bound to every interface is reached on loopback. */
function defaultUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const hostPart = reachable.includes(':') ? `[${reachable}]` : reachable;
  return `http://${hostPart}:${port}/`;
}

async function readCookie(file: string): Promise<{ user: string; password: string }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CallUsageError(
      `cannot read --rpc-cookie ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  const colon = text.indexOf(':');
  if (colon <= 0) throw new CallUsageError(`--rpc-cookie ${file} is not a cookie file`);
  return { user: text.slice(0, colon), password: text.slice(colon + 1).trim() };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * One call through the SDK (@chain/rpc-client), not retried: the reply's result or JSON-RPC error;
 * NoReplyError when no JSON-RPC reply comes (cannot connect, timeout, not a chain-node endpoint).
 */
export async function postCall(
  endpoint: Endpoint,
  method: string,
  params: unknown,
  timeoutMs: number,
): Promise<{ result: unknown } | { error: JsonRpcError }> {
  const client = createClient({
    url: endpoint.url,
    timeoutMs,
    retries: 0,
    ...(endpoint.authorization ? { headers: { authorization: endpoint.authorization } } : {}),
  });
  try {
    const call = client.call as (name: string, params?: unknown) => Promise<unknown>;
    return { result: await call(method, exactAmounts(method, params)) };
  } catch (error) {
    if (isRpcError(error)) {
      const data = error.data;
      return {
        error: {
          code: error.code,
          message: error.message,
          ...(typeof data === 'object' && data !== null ? { data } : {}),
        },
      };
    }
    if (error instanceof TimeoutError) {
      throw new NoReplyError(`no reply from ${endpoint.shown} within ${timeoutMs} ms`);
    }
    if (error instanceof TransportError && error.reason === 'NETWORK') {
      throw new NoReplyError(
        `cannot connect to ${endpoint.shown} (${networkCause(error.cause)}); is the node running? (chain-node start)`,
      );
    }
    if (error instanceof TransportError) {
      const status = error.status === undefined ? '' : ` (HTTP ${error.status})`;
      throw new NoReplyError(
        `no JSON-RPC reply from ${endpoint.shown}${status}; is it a chain-node RPC endpoint?`,
      );
    }
    throw error;
  }
}

/**
 * The SDK takes amounts only as decimal strings; a number the command line gave for one is exact
 * (quoteInexactNumbers quoted the others), so it goes as its own text.
 */
function exactAmounts(method: string, params: unknown): unknown {
  const spec = (catalogue as Record<string, { params: Record<string, { kind: string }> }>)[method];
  if (spec === undefined || typeof params !== 'object' || params === null) return params;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(params)
    ? [...params]
    : { ...(params as Record<string, unknown>) };
  Object.entries(spec.params).forEach(([name, param], index) => {
    if (param.kind !== 'amount') return;
    const key = Array.isArray(copy) ? index : name;
    const value = (copy as Record<string | number, unknown>)[key];
    if (typeof value === 'number' || typeof value === 'bigint') {
      (copy as Record<string | number, unknown>)[key] = String(value);
    }
  });
  return copy;
}

function networkCause(error: unknown): string {
  // undici says "fetch failed" and puts the useful part (ECONNREFUSED, ENOTFOUND) in the cause.
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return (error as Error).message;
}
