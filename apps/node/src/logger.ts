import { type Logger, pino } from 'pino';
import pretty from 'pino-pretty';
import type { LogLevel } from './options';

export type { Logger };

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

export function createLogger(
  level: LogLevel,
  destination: NodeJS.WritableStream = process.stdout,
): Logger {
  const options = {
    level,
    base: undefined,
    redact: { paths: SECRET_KEYS.flatMap((key) => [key, `*.${key}`]), censor: '[secret]' },
  };
  const isTerminal = (destination as NodeJS.WriteStream).isTTY === true;
  if (!isTerminal) return pino(options, destination);
  return pino(
    options,
    pretty({
      destination,
      colorize: true,
      translateTime: 'HH:MM:ss.l',
      ignore: 'pid,hostname',
      sync: true,
    }),
  );
}
