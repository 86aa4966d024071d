import { createRequire } from 'node:module';
import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';
import type PinoPretty from 'pino-pretty';
import { openRotatingFile, parseLogFileSize, type RotatingFile } from './log-file';
import type { LogLevel } from './options';

export type { Logger };

const LOG_LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'silent'];

/**
 * The parts of the node whose level can be set apart (`--log-level info,p2p=debug,rpc=warn`); a
 * record of any other part is at the default level.
 */
export const LOG_MODULES = ['p2p', 'rpc', 'chain', 'keystore', 'metrics'] as const;
export type LogModule = (typeof LOG_MODULES)[number];

/** Where and how the node logs (`chain-node start` flags; defaults in DEFAULT_NODE_OPTIONS). */
export interface LogOptions {
  /** A level (`info`), or a default and per-module levels: `info,p2p=debug,rpc=warn`. */
  level: string;
  /** `pretty` (human), `json` (one object a line), `auto`: pretty on a terminal, else JSON. */
  format: 'auto' | 'json' | 'pretty';
  /** The live log file, also receiving every record (JSON), rotated by size beside it; empty for none. */
  file: string;
  /** Size at which the file is rotated: a number of MB, or with a unit: `500k`, `10m`, `1g`. */
  fileSize: string;
  /** Rotated files kept beside the live one (`file.1` ... `file.N`); older ones are deleted. */
  fileCount: number;
}

/** Keys whose values are secrets: redacted wherever they appear in a log record. */
const SECRET_KEYS = [
  'passphrase',
  'minepass',
  'priv',
  'private',
  'privateKey',
  'password',
  'rpcPassword',
];

interface LogLevels {
  level: LogLevel;
  modules: Partial<Record<LogModule, LogLevel>>;
}

function isLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/**
 * `info`, `p2p=debug`, `warn,p2p=debug,rpc=warn`: the default level (info unless given) and the
 * levels of modules. Throws an Error that names the bad part.
 */
export function parseLogLevels(spec: string): LogLevels {
  const levels: LogLevels = { level: 'info', modules: {} };
  for (const part of spec.split(',').map((item) => item.trim())) {
    if (part === '') continue;
    const [name, level, extra] = part.split('=').map((item) => item.trim());
    if (level === undefined) {
      if (!isLevel(name!)) {
        throw new Error(`unknown log level '${name}' (one of ${LOG_LEVELS.join(', ')})`);
      }
      levels.level = name;
      continue;
    }
    if (!(LOG_MODULES as readonly string[]).includes(name!)) {
      throw new Error(`unknown log module '${name}' (one of ${LOG_MODULES.join(', ')})`);
    }
    if (extra !== undefined || !isLevel(level)) {
      throw new Error(`unknown log level '${part}' for ${name} (one of ${LOG_LEVELS.join(', ')})`);
    }
    levels.modules[name as LogModule] = level;
  }
  return levels;
}

const moduleLevels = new WeakMap<Logger, LogLevels['modules']>();

function loggerOptions(level: LogLevel): LoggerOptions {
  return {
    level,
    base: undefined,
    redact: { paths: SECRET_KEYS.flatMap((key) => [key, `*.${key}`]), censor: '[secret]' },
  };
}

/**
 * pino-pretty, loaded when a console is pretty only: a node logging JSON (a service, a container,
 * any output that is not a terminal) starts without its 30 files (docs/performance.md, "The
 * process's own start"). Synchronous (it is CommonJS), as the loggers are made.
 */
function prettyStream(): typeof PinoPretty {
  return createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
}

function consoleStream(
  format: LogOptions['format'],
  destination: NodeJS.WritableStream,
): DestinationStream {
  const isTerminal = (destination as NodeJS.WriteStream).isTTY === true;
  if (format === 'json' || (format === 'auto' && !isTerminal)) {
    return destination as unknown as DestinationStream;
  }
  return prettyStream()({
    destination,
    colorize: isTerminal,
    translateTime: 'HH:MM:ss.l',
    ignore: 'pid,hostname',
    sync: true,
  });
}

/**
 * A logger to the console only (tests, commands): `level` is a level or a level spec
 * (parseLogLevels), the format pretty on a terminal and JSON elsewhere unless told.
 */
export function createLogger(
  level = 'info',
  destination: NodeJS.WritableStream = process.stdout,
  format: LogOptions['format'] = 'auto',
): Logger {
  const levels = parseLogLevels(level);
  const log = pino(loggerOptions(levels.level), consoleStream(format, destination));
  moduleLevels.set(log, levels.modules);
  return log;
}

const logFiles = new WeakMap<Logger, RotatingFile>();

/**
 * The node's logger: the console in the chosen format and, with `file`, JSON records to the live
 * log at exactly `file`, rotated by size beside it (`file.1` the newest rotation ... `file.N`,
 * `fileCount` kept; log-file.ts). Writes are synchronous, so nothing is lost when the process
 * exits; closeNodeLogger closes the file.
 */
export async function createNodeLogger(
  options: LogOptions,
  destination: NodeJS.WritableStream = process.stdout,
): Promise<Logger> {
  if (options.file === '') return createLogger(options.level, destination, options.format);
  const levels = parseLogLevels(options.level);
  const file = openRotatingFile({
    path: options.file,
    maxBytes: parseLogFileSize(options.fileSize),
    count: options.fileCount,
  });
  // Each stream takes every record: the loggers (root and modules) have filtered by level already.
  const streams = pino.multistream([
    { level: 'trace', stream: consoleStream(options.format, destination) },
    { level: 'trace', stream: file },
  ]);
  const log = pino(loggerOptions(levels.level), streams);
  moduleLevels.set(log, levels.modules);
  logFiles.set(log, file);
  return log;
}

/** Closes the log file of a createNodeLogger logger, if it has one (records after it go to the console only). */
export function closeNodeLogger(log: Logger): void {
  logFiles.get(log)?.close();
  logFiles.delete(log);
}

/** The logger of one part of the node: records tagged `module`, at the module's level if set. */
export function moduleLogger(log: Logger, module: LogModule): Logger {
  const level = moduleLevels.get(log)?.[module];
  return level === undefined ? log.child({ module }) : log.child({ module }, { level });
}
