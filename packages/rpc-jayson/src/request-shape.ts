/** The shape of a request object: plain objects, and params given beside `method`. */
import { JsonNumberText } from './exact-json.js';

/** A JSON object (not an array, not a number kept as its text). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof JsonNumberText)
  );
}

/** Moves params given beside `method` (holderToken, infoToken) into `params` when absent there. */
export function moveBesideMethod(
  request: Record<string, unknown>,
  params: unknown,
  names: readonly string[],
): unknown {
  let out = params;
  for (const name of names) {
    const value = request[name];
    if (value === undefined) continue;
    if (out === undefined || (Array.isArray(out) && out.length === 0)) out = { [name]: value };
    else if (isPlainObject(out) && out[name] === undefined) out = { ...out, [name]: value };
  }
  return out;
}
