/**
 * The progress bar of long commands (export, import, backup): cli-progress on stderr when stderr is
 * a terminal, nothing otherwise (a log file or a pipe gets the command's one-line summary only).
 */
import process from 'node:process';
import { SingleBar } from 'cli-progress';

export interface Progress {
  increment(by?: number): void;
  stop(): void;
}

const SILENT: Progress = { increment() {}, stop() {} };

export function createProgress(label: string, total: number, unit = 'blocks'): Progress {
  if (!process.stderr.isTTY || total <= 0) return SILENT;
  const bar = new SingleBar({
    format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | {eta_formatted} left`,
    stream: process.stderr,
    hideCursor: true,
    clearOnComplete: false,
    // Redraw at most 10 times a second: drawing per block would cost more than the block.
    fps: 10,
  });
  bar.start(total, 0);
  return {
    increment(by = 1) {
      bar.increment(by);
    },
    stop() {
      bar.stop();
    },
  };
}
