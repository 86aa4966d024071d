import process from 'node:process';
import { DEFAULT_RPC_SERVER_OPTIONS } from '@chain/rpc-jayson/options';
import yargs, { type Arguments, type Argv } from 'yargs';
import { hideBin, Parser } from 'yargs/helpers';
import { printBanner } from './banner';
import { callCommand } from './commands/call';
import { backupCommand, exportCommand, importCommand } from './commands/chain-files';
import { devnetCommand } from './commands/devnet';
import { initCommand } from './commands/init';
import { signRawCommand } from './commands/sign-raw';
import { watchCommand } from './commands/watch';
import { adoptMainTerminal, placeCommand, runOnBudgetThread } from './heap-budget';
import {
  closeNodeLogger,
  createNodeLogger,
  LOG_MODULES,
  type Logger,
  parseLogLevels,
} from './logger';
import { DEFAULT_NODE_OPTIONS, type NodeOptions } from './options';
import { startupFailureMessage } from './startup-failure';
import { APP_VERSION } from './version';

const defaults = DEFAULT_NODE_OPTIONS;
/** The RPC server's own defaults, for the flags that leave them unset (help prints them). */
const rpcDefaults = DEFAULT_RPC_SERVER_OPTIONS;

function startOptions(args: Argv) {
  return args
    .option('datadir', {
      type: 'string',
      describe: 'data directory (default ~/.chain-node/<network>)',
    })
    .option('network', { type: 'string', default: defaults.network, describe: 'network name' })
    .option('genesis', {
      type: 'string',
      describe: 'genesis JSON file (default: the embedded dev network)',
    })
    .option('rpc-host', {
      type: 'string',
      default: defaults.rpcHost,
      describe: 'JSON-RPC bind address',
    })
    .option('rpc-port', { type: 'number', default: defaults.rpcPort, describe: 'JSON-RPC port' })
    .option('rpc-user', { type: 'string', describe: 'JSON-RPC Basic auth user' })
    .option('rpc-password', { type: 'string', describe: 'JSON-RPC Basic auth password' })
    .option('rpc-allow-keys', {
      type: 'boolean',
      default: defaults.rpcAllowKeys,
      describe: 'allow methods that carry raw private keys off loopback',
    })
    .option('rpc-cors', {
      type: 'array',
      string: true,
      default: [],
      describe: 'allowed CORS origins',
    })
    .option('rpc-allowed-hosts', {
      type: 'array',
      string: true,
      default: [],
      describe: 'extra allowed Host names',
    })
    .option('rpc-ws-max-connections', {
      type: 'number',
      describe: `WebSocket connections at once, in total (default ${rpcDefaults.wsMaxConnections})`,
    })
    .option('rpc-ws-max-connections-per-ip', {
      type: 'number',
      describe: `WebSocket connections at once from one IP (default ${rpcDefaults.wsMaxConnectionsPerIp})`,
    })
    .option('rpc-ws-max-subscriptions', {
      type: 'number',
      describe: `subscriptions per WebSocket connection (default ${rpcDefaults.wsMaxSubscriptions})`,
    })
    .option('rpc-ws-max-buffered-bytes', {
      type: 'number',
      describe: `bytes a WebSocket client may leave unread before it is disconnected (default ${rpcDefaults.wsMaxBufferedBytes / 1024 ** 2} MiB)`,
    })
    .option('p2p-port', {
      type: 'number',
      default: defaults.p2pPort,
      describe: 'peer-to-peer port',
    })
    .option('peers', { type: 'string', default: '', describe: 'peers to dial, ip:port;ip:port' })
    .option('p2p-host', {
      type: 'string',
      default: defaults.p2pHost,
      describe: 'P2P bind address (a specific address is also the source of outgoing connections)',
    })
    .option('p2p-max-connections', {
      type: 'number',
      default: defaults.p2pMaxConnections,
      describe: 'open P2P connections at most, inbound and outbound',
    })
    .option('p2p-max-inbound-per-ip', {
      type: 'number',
      default: defaults.p2pMaxInboundPerIp,
      describe: 'inbound P2P connections from one IP at most (handshakes included)',
    })
    .option('mine-wallet', {
      type: 'array',
      string: true,
      default: [],
      describe: 'key-store wallet that signs blocks, unlocked at start (repeat)',
    })
    .option('mine-passphrase-file', {
      type: 'string',
      describe: `file holding the --mine-wallet passphrase (else ${'$'}CHAIN_MINE_PASSPHRASE)`,
    })
    .option('block-time', {
      type: 'number',
      default: defaults.blockTimeMs,
      describe: 'ms between blocks while operations are pending (0 = a block per submission)',
    })
    .option('mine', {
      type: 'boolean',
      default: defaults.mine,
      describe: 'produce blocks (--no-mine: follow only)',
    })
    .option('dev-passphrase', {
      type: 'string',
      default: defaults.devPassphrase,
      describe: 'key-store passphrase of the dev wallet',
    })
    .option('log-level', {
      type: 'string',
      default: defaults.logLevel,
      describe: `log level (trace, debug, info, warn, error, silent), or per module: info,p2p=debug,rpc=warn (modules: ${LOG_MODULES.join(', ')})`,
    })
    .option('log-format', {
      choices: ['auto', 'json', 'pretty'] as const,
      default: defaults.logFormat,
      describe: 'console log format (auto: pretty on a terminal, else JSON)',
    })
    .option('log-file', {
      type: 'string',
      describe:
        'also log (JSON) to this file, the live log; rotated by size to FILE.1 (newest) ... FILE.N',
    })
    .option('log-file-size', {
      type: 'string',
      default: defaults.logFileSize,
      describe: 'rotate the log file at this size (500k, 10m, 1g; a bare number is MB)',
    })
    .option('log-file-count', {
      type: 'number',
      default: defaults.logFileCount,
      describe: 'rotated log files kept beside the live one (FILE.1 ... FILE.N)',
    })
    .option('metrics', {
      type: 'boolean',
      default: defaults.metrics,
      describe: 'serve Prometheus metrics at http://<metrics-address>:<metrics-port>/metrics',
    })
    .option('metrics-address', {
      type: 'string',
      default: defaults.metricsHost,
      describe: 'metrics bind address',
    })
    .option('metrics-port', {
      type: 'number',
      default: defaults.metricsPort,
      describe: 'metrics port',
    })
    .option('max-heap-mb', {
      type: 'number',
      default: defaults.maxHeapMb,
      describe:
        "heap budget in MB (V8's old generation; 0 = none, V8 sizes it from the machine's memory)",
    })
    .option('state-cache-mb', {
      type: 'number',
      default: defaults.stateCacheMb,
      describe: 'megabytes of committed state (accounts, addresses, tokens) kept decoded in memory',
    })
    .option('verify-state', {
      type: 'boolean',
      default: defaults.verifyState,
      describe:
        'read the whole state at start and check it against its checksum (slow on a large state)',
    })
    .check((argv) => {
      if (!(argv['state-cache-mb'] >= 1)) {
        throw new Error(`--state-cache-mb must be a number >= 1, got ${argv['state-cache-mb']}`);
      }
      for (const key of ['rpc-port', 'p2p-port', 'metrics-port'] as const) {
        const port = argv[key];
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw new Error(`--${key} must be a port number 0-65535, got ${port}`);
      }
      if (!Number.isInteger(argv['block-time']) || argv['block-time'] < 0) {
        throw new Error(
          `--block-time must be a whole number of milliseconds >= 0, got ${argv['block-time']}`,
        );
      }
      parseLogLevels(argv['log-level']);
      if (!/^\d+(\.\d+)?[kmg]?$/i.test(argv['log-file-size'])) {
        throw new Error(
          `--log-file-size must be a size such as 500k, 10m or 1g, got ${argv['log-file-size']}`,
        );
      }
      if (!Number.isInteger(argv['log-file-count']) || argv['log-file-count'] < 1) {
        throw new Error(
          `--log-file-count must be a whole number >= 1, got ${argv['log-file-count']}`,
        );
      }
      if (!Number.isInteger(argv['max-heap-mb']) || argv['max-heap-mb'] < 0) {
        throw new Error(`--max-heap-mb must be a whole number >= 0, got ${argv['max-heap-mb']}`);
      }
      for (const key of ['p2p-max-connections', 'p2p-max-inbound-per-ip'] as const) {
        if (!Number.isInteger(argv[key]) || argv[key] < 1) {
          throw new Error(`--${key} must be a whole number >= 1, got ${argv[key]}`);
        }
      }
      return true;
    });
}

/**
 * `chain-node call ... | head`: once the reader of stdout is gone, the command has nothing left to
 * say: it exits quietly (as cast and bitcoin-cli do) instead of dying on EPIPE with a stack trace.
 */
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

type StartArgs = Awaited<ReturnType<ReturnType<typeof startOptions>['parse']>>;

function toNodeOptions(argv: StartArgs): Partial<NodeOptions> {
  return {
    datadir: argv.datadir,
    network: argv.network,
    genesis: argv.genesis,
    rpcHost: argv['rpc-host'],
    rpcPort: argv['rpc-port'],
    rpcUser: argv['rpc-user'],
    rpcPassword: argv['rpc-password'],
    rpcAllowKeys: argv['rpc-allow-keys'],
    rpcCors: argv['rpc-cors'],
    rpcAllowedHosts: argv['rpc-allowed-hosts'],
    rpcWsMaxConnections: argv['rpc-ws-max-connections'],
    rpcWsMaxConnectionsPerIp: argv['rpc-ws-max-connections-per-ip'],
    rpcWsMaxSubscriptions: argv['rpc-ws-max-subscriptions'],
    rpcWsMaxBufferedBytes: argv['rpc-ws-max-buffered-bytes'],
    p2pPort: argv['p2p-port'],
    p2pHost: argv['p2p-host'],
    p2pMaxConnections: argv['p2p-max-connections'],
    p2pMaxInboundPerIp: argv['p2p-max-inbound-per-ip'],
    mineWallets: argv['mine-wallet'],
    minePassphraseFile: argv['mine-passphrase-file'],
    peers: argv.peers
      .split(';')
      .map((peer) => peer.trim())
      .filter(Boolean),
    blockTimeMs: argv['block-time'],
    mine: argv.mine,
    devPassphrase: argv['dev-passphrase'],
    logLevel: argv['log-level'],
    logFormat: argv['log-format'],
    logFile: argv['log-file'],
    logFileSize: argv['log-file-size'],
    logFileCount: argv['log-file-count'],
    metrics: argv.metrics,
    metricsHost: argv['metrics-address'],
    metricsPort: argv['metrics-port'],
    maxHeapMb: argv['max-heap-mb'],
    stateCacheMb: argv['state-cache-mb'],
    verifyState: argv['verify-state'],
  };
}

async function start(argv: StartArgs) {
  const options = toNodeOptions(argv);
  // Under the heap budget the node runs on a worker thread that runs this same command.
  if (await runOnBudgetThread(options.maxHeapMb ?? defaults.maxHeapMb, import.meta.url)) return;
  const log = await createNodeLogger({
    level: options.logLevel ?? defaults.logLevel,
    format: options.logFormat ?? defaults.logFormat,
    file: options.logFile ?? defaults.logFile,
    fileSize: options.logFileSize ?? defaults.logFileSize,
    fileCount: options.logFileCount ?? defaults.logFileCount,
  });
  // Loaded here, not at the top: `chain-node call` and `init` start in a fraction of the time
  // without the node's whole dependency tree (libp2p, LevelDB, the key store).
  const { createNode } = await import('./node');
  const node = createNode(options, log);
  let stopping = false;
  const stop = async (signal: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await node.close();
    log.info('stopped');
    closeNodeLogger(log);
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  try {
    const served = await node.start();
    node.chain.onStoreFailure((error) => {
      log.fatal({ err: error }, 'a write to the chain database failed: the node stops');
      void stop('store failure', 1);
    });
    printBanner(node.options, node.chain, served);
  } catch (error) {
    failStartup(error, node.options, log);
    await node.close().catch(() => undefined);
    closeNodeLogger(log);
    process.exit(1);
  }
}

function failStartup(error: unknown, options: NodeOptions, log: Logger) {
  const message = startupFailureMessage(error, options);
  if (message) {
    process.stderr.write(`chain-node: ${message}\n`);
  } else {
    log.error({ err: error }, 'start failed');
  }
}

const ENV_PREFIX = 'CHAIN';

/** The part of yargs' instance that @types/yargs leaves out: what the running command declares. */
interface DeclaredOptions {
  getOptions(): { key: Record<string, unknown>; alias: Record<string, string[]> };
}

/**
 * `.env('CHAIN')` turns every CHAIN_* variable into an argument, and strict mode refuses those no
 * option declares, so a variable an operator's environment sets for something else would stop the
 * node. Runs before validation and drops what only such a variable set; strictness stays for the
 * command line (an unknown flag there is still refused, even if a variable of its name is set too).
 */
function ignoreUnknownEnvVariables(argv: Arguments, cli: DeclaredOptions): void {
  const { key, alias } = cli.getOptions();
  const declared = new Set(
    [...Object.keys(key), ...Object.values(alias).flat()].map((name) => Parser.camelCase(name)),
  );
  const onCommandLine = new Set(Object.keys(Parser(hideBin(process.argv))));
  for (const variable of Object.keys(process.env)) {
    if (!variable.startsWith(ENV_PREFIX)) continue;
    // yargs-parser's own mapping: CHAIN_FOO_BAR sets fooBar, CHAIN_FOO__BAR sets foo.bar.
    const name = Parser.camelCase(variable.slice(ENV_PREFIX.length).split('__')[0]!);
    if (!name || declared.has(name) || onCommandLine.has(name)) continue;
    delete argv[name];
    delete argv[Parser.decamelize(name, '-')];
  }
}

adoptMainTerminal();
quietOnClosedPipe(process.stdout);
// One instance throughout: yargs resets it for the chosen command and runs that command's builder
// on it, so while the middleware runs its options are the command's.
const cli = yargs(hideBin(process.argv));
await cli
  .scriptName('chain-node')
  .usage('$0 <command> [options]')
  .env(ENV_PREFIX)
  .middleware((argv) => ignoreUnknownEnvVariables(argv, cli as unknown as DeclaredOptions), true)
  // On the placement thread (heap-budget.ts) only `start` runs, to say where the node goes.
  .middleware((argv) => {
    if (argv._[0] !== 'start') placeCommand();
  })
  .config('config', 'JSON config file with the same keys as the flags')
  .command(
    'start',
    'run a node (the embedded dev network unless --genesis says otherwise)',
    startOptions,
    start,
  )
  .command(callCommand)
  .command(initCommand)
  .command(signRawCommand)
  .command(devnetCommand)
  .command(watchCommand)
  .command(exportCommand)
  .command(importCommand)
  .command(backupCommand)
  // The mine wallets' passphrase comes from the environment (CHAIN_MINE_PASSPHRASE, read by
  // mine-wallets.ts) or a file, never from the command line; declared so strict mode accepts it.
  .option('mine-passphrase', { type: 'string', hidden: true, global: true })
  .check((argv) => {
    if (
      hideBin(process.argv).some((arg) => arg.startsWith('--mine-passphrase=')) ||
      hideBin(process.argv).includes('--mine-passphrase')
    ) {
      throw new Error(
        'pass the mine passphrase in CHAIN_MINE_PASSPHRASE or --mine-passphrase-file, not on the command line',
      );
    }
    return argv !== undefined;
  })
  .demandCommand(1, 'say what to do, e.g. `chain-node start`')
  .strict()
  .version(APP_VERSION)
  .help()
  .fail((message, error) => {
    process.stderr.write(
      `chain-node: ${message ?? error?.message}\nRun \`chain-node --help\` for usage.\n`,
    );
    process.exit(2);
  })
  .parseAsync();
