/**
 * `chain-node watch <event> [wallet|token] [--from N] [--json]`: prints a running node's push
 * notifications as they come (issue 16), one line each (one JSON line with --json). Exit codes as
 * `chain-node call`'s: 1 the node refused the subscription, 2 a usage error, 3 no connection or the
 * connection closed.
 */
import process from 'node:process';
import { createClient, isRpcError } from '@chain/rpc-client';
import { PUSH_EVENTS, type PushEvent, type Reorganization } from '@chain/spec';
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
function subscribeParams(argv: Pick<WatchArgs, 'event' | 'target' | 'from'>) {
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

function describeReorganization(r: Reorganization): string {
  return `reorganisation${r.deep ? ' (DEEP)' : ''}  ${r.depth} blocks replaced after block ${r.fork_block}  head ${r.old_head.block} ${r.old_head.hash} -> ${r.new_head.block} ${r.new_head.hash}  from ${r.peer}`;
}

/** One human line of a notification. */
function describeNotification(event: PushEvent, result: Record<string, unknown>): string {
  if (event === 'newBlocks') {
    return `block ${result.block}  ${result.operations} operations  ${result.hash}  by ${result.hmr}`;
  }
  if (event === 'reorganizations')
    return describeReorganization(result as unknown as Reorganization);
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
  // Through the SDK, as `chain-node call`; no reconnect: when the node goes away, watch ends (3).
  const client = createClient({
    url: endpoint.url,
    WebSocket,
    reconnect: false,
    ...(endpoint.authorization ? { headers: { authorization: endpoint.authorization } } : {}),
  });
  let interrupted = false;
  const interrupt = () => {
    interrupted = true;
    client.close();
  };
  process.once('SIGINT', interrupt);
  const { event, ...subscribe } = params;
  const subscription = client.subscribe(event, subscribe, (result) => {
    const fields = result as unknown as Record<string, unknown>;
    process.stdout.write(
      `${argv.json ? JSON.stringify(result) : describeNotification(event, fields)}\n`,
    );
  });
  let subscribed = false;
  try {
    await subscription.ready;
    subscribed = true;
    await subscription.ended;
    return CALL_EXIT.OK;
  } catch (error) {
    if (interrupted) return CALL_EXIT.OK;
    if (isRpcError(error)) {
      const data = error.data as JsonRpcError['data'] | undefined;
      const refusal: JsonRpcError = {
        code: error.code,
        message: error.message,
        ...(typeof data === 'object' && data !== null ? { data } : {}),
      };
      process.stderr.write(
        `${argv.json ? JSON.stringify({ error: refusal }) : describeError(refusal)}\n`,
      );
      return CALL_EXIT.RPC_ERROR;
    }
    const why = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      subscribed
        ? `chain-node: the node closed the connection (${why})\n`
        : `chain-node: cannot watch ${endpoint.shown}: ${why}\n`,
    );
    return CALL_EXIT.NO_REPLY;
  } finally {
    process.off('SIGINT', interrupt);
    client.close();
  }
}
