import { JsonNumberText } from './exact-json.js';

/**
 * Results of `cacheable` methods (a pure function of their params and the node's state), kept as
 * JSON text until the state version moves: wallets polled between two blocks are answered without
 * running the handler or serialising its result again.
 */
export class ResultCache {
  private readonly entries = new Map<string, string>();
  private version: number;

  constructor(
    private readonly currentVersion: () => number,
    private readonly maxEntries: number,
  ) {
    this.version = currentVersion();
  }

  /** The version to hand back to `set` once the result is known. */
  versionNow(): number {
    const now = this.currentVersion();
    if (now !== this.version) {
      this.entries.clear();
      this.version = now;
    }
    return now;
  }

  get(key: string): string | undefined {
    this.versionNow();
    return this.entries.get(key);
  }

  /** Keeps `json` unless the state moved since `version` (the result may be of the old state). */
  set(key: string, json: string, version: number): void {
    if (this.versionNow() !== version) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, json);
  }
}

/**
 * The cache key of a call: its method and its params as sent (absent, positional or named), each
 * with its name or position and (strings) its length, so that no two different calls share a key;
 * undefined when a param is not a scalar, and the call then goes uncached. A number JS cannot hold
 * exactly is keyed by its text (`#`), which is all the coercion reads of it.
 */
export function resultCacheKey(method: string, params: unknown): string | undefined {
  if (params === undefined) return method;
  if (typeof params !== 'object' || params === null) return undefined;
  let key = Array.isArray(params) ? `${method}[` : `${method}{`;
  const entries = params as Record<string, unknown>;
  for (const name in entries) {
    const value = entries[name];
    if (typeof value === 'string') key += `\u0000${name}:${value.length}:${value}`;
    else if (typeof value === 'number' || typeof value === 'boolean') {
      key += `\u0000${name}=${Object.is(value, -0) ? '-0' : value}`;
    } else if (value instanceof JsonNumberText) key += `\u0000${name}#${value.text}`;
    else return undefined;
  }
  return key;
}
