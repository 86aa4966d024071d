import { join } from 'node:path';
import { isValidIp } from '../peers/address';
import { FileSaver, readJsonFile } from '../peers/json-file';

export interface BlacklistEntry {
  ip: string;
  /** The peer's port when it was listed (0 when unknown, e.g. a manual entry). */
  port: number;
  /** Unix ms when listed. */
  since: number;
  /** Unix ms of the last connection attempt from or to this IP (listing counts as one). */
  lastConnection: number;
  /** Unix ms after which the entry no longer applies. */
  expiresAt: number;
  /** Why: free text for manual entries, `ERRCODE:<n> ERROR:<text>` for automatic ones. */
  reason: string;
  manual: boolean;
}

interface BlacklistOptions {
  /** `<datadir>/p2p`: the list is kept in `blacklist.json` there. */
  dir: string;
  now?: () => number;
}

/**
 * IPs refused by the connection gater: added by hand (addBlacklist) or automatically (a peer that
 * misbehaved), each until it expires; persisted so a restart keeps them.
 */
export class Blacklist {
  private readonly entries = new Map<string, BlacklistEntry>();
  private readonly path: string;
  private readonly saver: FileSaver;
  private readonly now: () => number;

  constructor(options: BlacklistOptions) {
    this.now = options.now ?? Date.now;
    this.path = join(options.dir, 'blacklist.json');
    this.saver = new FileSaver(this.path, () => ({
      version: 1,
      entries: [...this.entries.values()],
    }));
  }

  async load(): Promise<void> {
    const file = (await readJsonFile(this.path)) as { entries?: unknown } | undefined;
    if (!Array.isArray(file?.entries)) return;
    for (const raw of file.entries as Partial<BlacklistEntry>[]) {
      if (typeof raw.ip !== 'string' || !isValidIp(raw.ip)) continue;
      if (typeof raw.expiresAt !== 'number' || raw.expiresAt <= this.now()) continue;
      this.entries.set(raw.ip, {
        ip: raw.ip,
        port: typeof raw.port === 'number' ? raw.port : 0,
        since: typeof raw.since === 'number' ? raw.since : this.now(),
        lastConnection: typeof raw.lastConnection === 'number' ? raw.lastConnection : 0,
        expiresAt: raw.expiresAt,
        reason: typeof raw.reason === 'string' ? raw.reason : '',
        manual: raw.manual === true,
      });
    }
  }

  /** Adds or renews an entry; returns it. */
  add(entry: {
    ip: string;
    port?: number;
    reason: string;
    durationMs: number;
    manual: boolean;
  }): BlacklistEntry {
    const now = this.now();
    const existing = this.entries.get(entry.ip);
    const listed: BlacklistEntry = {
      ip: entry.ip,
      port: entry.port ?? existing?.port ?? 0,
      since: existing?.since ?? now,
      lastConnection: now,
      expiresAt: Math.max(existing?.expiresAt ?? 0, now + entry.durationMs),
      reason: entry.reason,
      manual: entry.manual || existing?.manual === true,
    };
    this.entries.set(entry.ip, listed);
    void this.saver.save().catch(() => undefined);
    return listed;
  }

  /** True when `ip` is listed and not expired; records the attempt. */
  blocks(ip: string): boolean {
    const entry = this.entries.get(ip);
    if (entry === undefined) return false;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(ip);
      void this.saver.save().catch(() => undefined);
      return false;
    }
    entry.lastConnection = this.now();
    return true;
  }

  has(ip: string): boolean {
    const entry = this.entries.get(ip);
    return entry !== undefined && entry.expiresAt > this.now();
  }

  /** Entries in force, oldest first. */
  list(): BlacklistEntry[] {
    const now = this.now();
    return [...this.entries.values()]
      .filter((e) => e.expiresAt > now)
      .sort((a, b) => a.since - b.since);
  }

  /** Removes every entry; returns how many were in force. */
  clear(): number {
    const count = this.list().length;
    this.entries.clear();
    void this.saver.save().catch(() => undefined);
    return count;
  }

  flush(): Promise<void> {
    return this.saver.flush();
  }
}
