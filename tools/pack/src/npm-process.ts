/** npm and node as child processes of the pack check: no npm_* variables of the outer `npm run`. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export const run = promisify(execFile);

/**
 * The environment of child npm/node processes: without the npm_* variables of the outer npm run,
 * and without colours (nx forces them), so that what a program prints is its plain text.
 */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(
      Object.entries(process.env).filter(
        ([key]) => !/^npm_/i.test(key) && key !== 'INIT_CWD' && key !== 'FORCE_COLOR',
      ),
    ),
    NO_COLOR: '1',
    ...extra,
  };
}

/** Runs npm in `cwd` and resolves with its stdout; a failure rejects with npm's stderr in the message. */
export async function npm(args: string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await run('npm', args, {
      cwd,
      env: cleanEnv(),
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`npm ${args.join(' ')} failed in ${cwd}:\n${stderr ?? String(error)}`);
  }
}

/** Runs `task` over `items`, at most `limit` at a time (npm processes are CPU-heavy at start). */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  async function worker(): Promise<void> {
    while (next < items.length) await task(items[next++]!);
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
