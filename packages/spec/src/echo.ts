/**
 * How much of a caller's input an error message repeats. Every layer that names a refused value in
 * a message (the server's coercion, a domain package's check) cuts it with `echoed`, so that a
 * 100 kB input is answered by a short message, never by itself.
 */

/** Most characters of a refused input a message repeats. */
export const MAX_ECHOED_INPUT = 64;

/**
 * `text` as an error message may repeat it: whole when at most `max` characters, else its first
 * `max` (never half of a surrogate pair) followed by `...` and how long it was.
 */
export function echoed(text: string, max: number = MAX_ECHOED_INPUT): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}... (${text.length} characters)`;
}
