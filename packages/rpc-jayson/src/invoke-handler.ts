/** Calling a handler the way jayson expects, with errors mapped in the one place they are. */
import { type JsonRpcErrorObject, toJsonRpcError } from './errors.js';
import type { CallContext, Logger } from './options.js';

export type AnyHandler = (params: Record<string, unknown>, context: CallContext) => unknown;
export type JaysonCallback = (error: JsonRpcErrorObject | null, result?: unknown) => void;

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Runs a handler for jayson (callback style: jayson's promise server passes a callback when the
 * method returns no promise) and maps whatever it throws in the one place errors are mapped.
 */
export function invokeHandler(
  handler: AnyHandler,
  name: string,
  params: unknown,
  context: CallContext,
  callback: JaysonCallback,
  log: Logger | undefined,
): void {
  let value: unknown;
  try {
    value = handler(params as Record<string, unknown>, context);
  } catch (err) {
    callback(toJsonRpcError(err, log, name));
    return;
  }
  if (!isThenable(value)) {
    callback(null, value);
    return;
  }
  value.then(
    (result) => callback(null, result),
    (err: unknown) => callback(toJsonRpcError(err, log, name)),
  );
}
