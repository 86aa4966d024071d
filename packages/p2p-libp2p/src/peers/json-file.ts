import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The parsed file, or undefined when it does not exist or is not valid JSON (it is rewritten). */
export async function readJsonFile(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Write to a temporary file and rename it over the old one, so a crash leaves one or the other. */
async function writeJsonFile(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, path);
}

/** Serialises saves of one file and coalesces bursts: at most one write in flight, one queued. */
export class FileSaver {
  private running: Promise<void> | undefined;
  private queued = false;

  constructor(
    private readonly path: string,
    private readonly snapshot: () => unknown,
  ) {}

  save(): Promise<void> {
    if (this.running !== undefined) {
      this.queued = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.queued = false;
          await writeJsonFile(this.path, this.snapshot());
        } while (this.queued);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  /** Waits for a save in progress. */
  async flush(): Promise<void> {
    await this.running?.catch(() => undefined);
  }
}
