const NS_PER_MS = 1_000_000n;

/**
 * Geth's naming, `UTC--<ISO 8601 time with '-' for ':'>--<address>`, here with nanosecond digits
 * and a `.json` suffix. The time in the name is what orders keys by creation across restarts.
 */
export function keyFileName(createdAtNs: bigint, address: string): string {
  const ms = createdAtNs / NS_PER_MS;
  const subMs = createdAtNs % NS_PER_MS;
  const iso = new Date(Number(ms)).toISOString(); // 2024-01-02T03:04:05.678Z
  const time = `${iso.slice(0, 23)}${subMs.toString().padStart(6, '0')}Z`.replaceAll(':', '-');
  return `UTC--${time}--${address}.json`;
}

const NAME_TIME = /^UTC--(\d{4}-\d{2}-\d{2})T(\d{2})[-:](\d{2})[-:](\d{2})(?:\.(\d{1,9}))?Z--/;

/** Nanoseconds since the epoch from a geth-style file name, or null for any other name. */
export function creationTimeOfName(name: string): bigint | null {
  const match = NAME_TIME.exec(name);
  if (match === null) return null;
  const [, date, hours, minutes, seconds, fraction = ''] = match;
  const ms = Date.parse(`${date}T${hours}:${minutes}:${seconds}Z`);
  if (Number.isNaN(ms)) return null;
  return BigInt(ms) * NS_PER_MS + BigInt(fraction.padEnd(9, '0'));
}

/**
 * Creation times for new files: wall-clock milliseconds, bumped by a nanosecond when two keys are
 * made within the same millisecond, so names sort in the order the keys were made.
 */
export function createCreationClock(now: () => number = Date.now): () => bigint {
  let last = 0n;
  return () => {
    const wall = BigInt(now()) * NS_PER_MS;
    last = wall > last ? wall : last + 1n;
    return last;
  };
}
