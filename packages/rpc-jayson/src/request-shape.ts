/**
 * The shape of a request object: plain objects, its id, params given beside `method`, and the
 * choice between JSON.parse's request and the same request with every number exact.
 */
import { InvalidParamsError } from './errors.js';
import { holdsNumber, JsonNumberText, type RequestBody, sameJsonValue } from './exact-json.js';

/** Why a request's numbers cannot be read exactly. */
export const TOO_DEEP_MESSAGE =
  'request nested too deeply to read its numbers exactly; send fewer levels of arrays or objects';

/** A JSON object (not an array, not a number kept as its text). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof JsonNumberText)
  );
}

/**
 * Moves params given beside `method` (holderToken, infoToken) into `params`. Given in both places,
 * a param must have the same value in both (else a -32602 naming it: never a silent choice), and
 * beside positional params it is refused (which of them it would be is the catalogue's order, not
 * the caller's).
 */
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
    else if (Array.isArray(out)) {
      throw new InvalidParamsError(
        `parameter '${name}' is given beside 'method' and params are positional: give it in one place`,
        name,
      );
    } else if (isPlainObject(out) && out[name] === undefined) out = { ...out, [name]: value };
    else if (isPlainObject(out) && !sameJsonValue(out[name], value)) {
      throw new InvalidParamsError(
        `parameter '${name}' is given twice with different values: beside 'method' and in params`,
        name,
      );
    }
  }
  return out;
}

/** A number a JS number holds exactly whatever its text: a safe integer (but -0). */
function isPlainInteger(n: number): boolean {
  return Number.isSafeInteger(n) && !Object.is(n, -0);
}

/**
 * The response id of a request id: a string as is; a number as the safe integer it is (7, 7.0 and
 * 7e0 all answer "7"), any other number exactly as written (every digit of 12345678901234567890,
 * "1.50", "-0"); null for null or none; undefined for another type (an invalid request).
 */
export function responseId(raw: unknown): string | null | undefined {
  if (typeof raw === 'string') return raw;
  if (raw === undefined || raw === null) return null;
  if (typeof raw === 'number') return String(raw);
  if (raw instanceof JsonNumberText) {
    const value = Number(raw.text);
    return isPlainInteger(value) ? String(value) : raw.text;
  }
  return undefined;
}

/**
 * The request to serve: JSON.parse's `entry` when nothing in it can differ from what was written
 * (no number in its params or in `besideMethod` fields, an id that is no number or a safe
 * integer), else the same request read with every number exact (undefined: too deep to read so).
 */
export function exactRequest(
  entry: Record<string, unknown>,
  body: RequestBody,
  batchIndex: number | undefined,
  besideMethod: readonly string[] | undefined,
): Record<string, unknown> | undefined {
  const id = entry.id;
  const needed =
    (typeof id === 'number' && !isPlainInteger(id)) ||
    holdsNumber(entry.params) ||
    besideMethod?.some((name) => holdsNumber(entry[name])) === true;
  if (!needed) return entry;
  const exact = body.exact();
  if (exact === undefined) return undefined;
  const value = batchIndex === undefined ? exact.value : (exact.value as unknown[])[batchIndex];
  return value as Record<string, unknown>;
}
