import { type ChildProcess, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/** tsx's ESM loader, by absolute URL so a child finds it whatever its working directory. */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/**
 * Forks a TypeScript module as a Node child process with an IPC channel. Workspace packages resolve
 * to their sources (the "@chain/source" condition), as in the tests, so a child never runs a stale
 * build.
 */
export function forkTypeScript(
  file: string,
  options: { args?: readonly string[]; silent?: boolean } = {},
): ChildProcess {
  return fork(file, [...(options.args ?? [])], {
    execArgv: ['--import', TSX_LOADER, '--conditions=@chain/source'],
    stdio: options.silent === true ? ['ignore', 'pipe', 'pipe', 'ipc'] : 'inherit',
    serialization: 'json',
  });
}

/**
 * The first IPC message of a child; rejects when the child exits (or fails to start) first.
 */
export function firstMessage<T>(child: ChildProcess, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onMessage = (message: unknown) => {
      cleanup();
      resolve(message as T);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      cleanup();
      reject(new Error(`${what} exited before reporting (code ${code}, signal ${signal})`));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new Error(`${what} could not start: ${error.message}`, { cause: error }));
    };
    const cleanup = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
    child.on('error', onError);
  });
}

/** Ends a child: SIGTERM, then SIGKILL after `graceMs`. Resolves once it has exited. */
export async function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}
