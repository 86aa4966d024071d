/**
 * `chain-node watch <event> [wallet|token] [--from N] [--json]`: prints a running node's push
 * notifications as they come (issue 16), one line each (one JSON line with --json). Exit codes as
 * `chain-node call`'s: 1 the node refused the subscription, 2 a usage error, 3 no connection or the
 * connection closed.
 */
import process from 'node:process';
import { PUSH_EVENTS, type PushEvent } from '@chain/spec';
import { WebSocket } from 'ws';
import type { Argv, CommandModule } from 'yargs';
import {
  CALL_EXIT,
  describeError,
  type EndpointArgs,
  endpointOptions,
  type JsonRpcError,
  resolveEndpoint,
  START_OPTIONS_TAKEN_ALONG,
} from './call';
import { CallUsageError } from './call-params';

interface WatchArgs extends EndpointArgs {
  event?: string;
  target?: string;
  from?: number;
  json: boolean;
}

function watchOptions(args: Argv) {
  return endpointOptions(args)
    .positional('event', { type: 'string', describe: `one of ${PUSH_EVENTS.join(', ')}` })
    .positional('target', {
      type: 'string',
      describe: 'the wallet (walletOperations) or token (tokenTransfers)',
    })
    .option('from', { type: 'number', describe: 'replay history from this block first' })
    .option('json', { type: 'boolean', default: false, describe: 'one JSON line per notification' })
    .options(START_OPTIONS_TAKEN_ALONG)
    .example('$0 watch newBlocks', 'each new block')
    .example('$0 watch walletOperations CH… --from 0 --json', "a wallet's history, then live");
}

export const watchCommand: CommandModule<object, WatchArgs> = {
  command: 'watch [event] [target]',
  describe: 'print the notifications of a running node as they come (WebSocket push)',
  builder: watchOptions as unknown as CommandModule<object, WatchArgs>['builder'],
  handler: async (argv) => {
    process.exitCode = await runWatch(argv);
  },
};

/** The subscribe params of the command line. */
export function subscribeParams(argv: Pick<WatchArgs, 'event' | 'target' | 'from'>) {
  const event = argv.event;
  if (event === undefined || !(PUSH_EVENTS as readonly string[]).includes(event)) {
    throw new CallUsageError(`say which event to watch: ${PUSH_EVENTS.join(', ')}`);
  }
  const needs =
    event === 'walletOperations' ? 'wallet' : event === 'tokenTransfers' ? 'token' : undefined;
  if (needs !== undefined && argv.target === undefined) {
    throw new CallUsageError(`${event} needs a ${needs}: chain-node watch ${event} CH…`);
  }
  if (needs === undefined && argv.target !== undefined) {
    throw new CallUsageError(`${event} takes no wallet or token`);
  }
  if (argv.from !== undefined && (!Number.isSafeInteger(argv.from) || argv.from < 0)) {
    throw new CallUsageError('--from must be a block number (0 or more)');
  }
  return {
    event: event as PushEvent,
    ...(needs === undefined ? {} : { [needs]: argv.target }),
    ...(argv.from === undefined ? {} : { fromBlock: argv.from }),
  };
}

/** One human line of a notification. */
export function describeNotification(event: PushEvent, result: Record<string, unknown>): string {
  if (event === 'newBlocks') {
    return `block ${result.block}  ${result.operations} operations  ${result.hash}  by ${result.hmr}`;
  }
  const where = event === 'pendingOperations' ? 'pending' : `block ${result.block}`;
  const removed = result.removed === true ? '  REMOVED (reorganisation)' : '';
  return `${where}  ${result.ophash}  ${result.optxt}${removed}`;
}

async function runWatch(argv: WatchArgs): Promise<number> {
  let params: ReturnType<typeof subscribeParams>;
  let endpoint: Awaited<ReturnType<typeof resolveEndpoint>>;
  try {
    params = subscribeParams(argv);
    endpoint = await resolveEndpoint(argv);
  } catch (error) {
    if (!(error instanceof CallUsageError)) throw error;
    process.stderr.write(
      `chain-node: ${error.message}\nRun \`chain-node watch --help\` for usage.\n`,
    );
    return CALL_EXIT.USAGE;
  }
  const url = endpoint.url.replace(/^http/, 'ws');
  const headers =
    endpoint.authorization === undefined ? {} : { authorization: endpoint.authorization };
  return new Promise<number>((resolve) => {
    const ws = new WebSocket(url, { headers });
    let subscription: string | undefined;
    let code: number = CALL_EXIT.NO_REPLY;
    const stop = () => ws.close(1000);
    process.once('SIGINT', () => {
      code = CALL_EXIT.OK;
      stop();
    });
    ws.on('unexpected-response', (_req, res) => {
      process.stderr.write(
        `chain-node: ${endpoint.shown} refused the WebSocket (HTTP ${res.statusCode})\n`,
      );
      res.resume();
    });
    ws.on('error', (error) => {
      process.stderr.write(`chain-node: cannot watch ${endpoint.shown}: ${error.message}\n`);
    });
    ws.on('open', () => {
      ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'subscribe', params, id: 1 }));
    });
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as {
        method?: string;
        params?: { subscription: string; result: Record<string, unknown> };
        result?: unknown;
        error?: JsonRpcError;
      };
      if (message.method === 'subscription' && message.params !== undefined) {
        if (message.params.subscription !== subscription) return;
        const { result } = message.params;
        process.stdout.write(
          `${argv.json ? JSON.stringify(result) : describeNotification(params.event, result)}\n`,
        );
      } else if (message.error !== undefined) {
        process.stderr.write(
          `${argv.json ? JSON.stringify({ error: message.error }) : describeError(message.error)}\n`,
        );
        code = CALL_EXIT.RPC_ERROR;
        stop();
      } else if (subscription === undefined) {
        subscription = String(message.result);
      }
    });
    ws.on('close', (closeCode) => {
      if (code === CALL_EXIT.NO_REPLY && subscription !== undefined) {
        process.stderr.write(`chain-node: the node closed the connection (${closeCode})\n`);
      }
      resolve(code);
    });
  });
}
