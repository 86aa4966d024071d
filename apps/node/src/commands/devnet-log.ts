/**
 * The devnet's merged log: every line of every node, prefixed with the node's name. The nodes write
 * pino's JSON (their stdout is a pipe); it is shown as one readable line per record.
 */

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};

function clock(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

function fieldText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** One log line of a node as the devnet shows it; lines that are not pino records pass unchanged. */
export function formatNodeLogLine(name: string, line: string): string {
  let record: Record<string, unknown> | undefined;
  if (line.startsWith('{')) {
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      record = undefined;
    }
  }
  if (record === undefined || typeof record.level !== 'number' || typeof record.msg !== 'string') {
    return `${name} | ${line}`;
  }
  const { level, time, msg, ...fields } = record;
  const extra = Object.entries(fields)
    .map(([key, value]) => `${key}=${fieldText(value)}`)
    .join(' ');
  const when = typeof time === 'number' ? `${clock(time)} ` : '';
  return `${name} | ${when}${LEVELS[level as number] ?? level} ${msg}${extra ? ` ${extra}` : ''}`;
}

/** Splits a stream's chunks into whole lines, calling `onLine` for each. */
export function lineSplitter(onLine: (line: string) => void): {
  push(chunk: string): void;
  end(): void;
} {
  let rest = '';
  return {
    push(chunk) {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop() ?? '';
      for (const part of parts) onLine(part);
    },
    end() {
      if (rest) onLine(rest);
      rest = '';
    },
  };
}
