import process from 'node:process';
import yargs, { type Arguments, type Argv } from 'yargs';
import { hideBin, Parser } from 'yargs/helpers';
import { printBanner } from './banner';
import { callCommand } from './commands/call';
import {
  backupCommand,
  exportCommand,
  importCommand,
  snapshotCommand,
} from './commands/chain-files';
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
import {
  DEFAULT_NODE_OPTIONS,
  type NodeOptions,
  nodeOptionsFromFlags,
  startFlagDeclarations,
} from './options';
import { startupFailureMessage } from './startup-failure';
import { APP_VERSION } from './version';

const defaults = DEFAULT_NODE_OPTIONS;

/**
 * `chain-node start`'s flags: declared by group in options.ts beside the defaults they override
 * (START_FLAG_GROUPS), so help prints the defaults from the same constants the node uses.
 */
function startOptions(args: Argv) {
  const declarations = startFlagDeclarations();
  const logLevel = declarations['log-level']!;
  logLevel.describe = `${logLevel.describe} (modules: ${LOG_MODULES.join(', ')})`;
  return args.options(declarations).check((parsed) => {
    const argv = parsed as unknown as CheckedFlags;
    if (!(argv['state-cache-mb'] >= 1)) {
      throw new Error(`--state-cache-mb must be a number >= 1, got ${argv['state-cache-mb']}`);
    }
    if (argv['mempool-mb'] !== undefined && !(argv['mempool-mb'] >= 1)) {
      throw new Error(`--mempool-mb must be a number >= 1, got ${argv['mempool-mb']}`);
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
    for (const key of ['snap-distance', 'snap-operations'] as const) {
      if (!Number.isSafeInteger(argv[key]) || argv[key] < 1) {
        throw new Error(`--${key} must be a whole number >= 1, got ${argv[key]}`);
      }
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

/** The start flags the check reads, as yargs parsed them (their declarations give the types). */
interface CheckedFlags {
  'state-cache-mb': number;
  'mempool-mb': number | undefined;
  'rpc-port': number;
  'p2p-port': number;
  'metrics-port': number;
  'block-time': number;
  'log-level': string;
  'log-file-size': string;
  'log-file-count': number;
  'max-heap-mb': number;
  'p2p-max-connections': number;
  'p2p-max-inbound-per-ip': number;
  'snap-distance': number;
  'snap-operations': number;
}

async function start(argv: Arguments) {
  const options = nodeOptionsFromFlags(argv);
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
  .command(snapshotCommand)
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
