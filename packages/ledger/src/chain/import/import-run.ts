import { performance } from 'node:perf_hooks';
import type { ImportBlocksOptions, ImportRun } from '../chain-types';
import { commitBlock } from '../commit/block-commit';
import { type AheadWork, executeImported, type ImportCore, verifyAhead } from './block-import';

/**
 * importBlocks: a run of blocks imported in order (a sync, a block file), through one pipeline
 * that owns the blocks in flight. Each block of the window is decoded once, the committed entries
 * it reads load and its signatures are checked on the verifier threads while the ones before it
 * apply; a block with others behind it is written behind (not synced: the next one applies while
 * the disk catches up, the store's group commit writes several at once), every
 * DURABLE_IMPORT_EVERY-th and the last of the window synced, and the run ends durable. The run,
 * not a count of concurrent callers, decides this: a single gossiped block (importBlock) is
 * durable before it resolves.
 */

/**
 * The window: at most IMPORT_WINDOW blocks, IMPORT_WINDOW_BYTES of them, in flight (the one
 * applying included). A few large blocks are enough work ahead; while one applies, the signatures
 * of those after it are checked (small blocks a batch at a time: SmallAheadBatches), and the
 * blocks applied while one write is under way go to disk together in the next (a LevelDB write
 * takes as long as validating a few small blocks).
 */
export const IMPORT_WINDOW = 32;
export const IMPORT_WINDOW_BYTES = 1 << 20;

type BlockSource = Iterable<Uint8Array> | AsyncIterable<Uint8Array>;

/** A block taken from the source: its bytes and what was started ahead of its turn. */
interface InFlight {
  bytes: Uint8Array;
  work: AheadWork | undefined;
}

/**
 * The blocks taken from a source and not imported yet, oldest first, kept filled from the source
 * while the oldest applies. The source is read only as fast as the window empties.
 */
class ImportWindow {
  private readonly entries: InFlight[] = [];
  private bytes = 0;
  private ended = false;
  private stopped = false;
  /** The source's own failure: the run imports what it took and then rejects with it. */
  failure: { error: unknown } | undefined;
  private wakeTaker: (() => void) | undefined;
  private wakeFiller: (() => void) | undefined;

  constructor(
    private readonly core: ImportCore,
    source: BlockSource,
  ) {
    void this.fill(source);
  }

  /** The oldest block in flight (left in the window until `done`), or undefined once the source ended. */
  async oldest(): Promise<InFlight | undefined> {
    while (this.entries.length === 0) {
      if (this.ended) return undefined;
      await new Promise<void>((resolve) => {
        this.wakeTaker = resolve;
      });
    }
    return this.entries[0];
  }

  /** Whether blocks wait behind the oldest. */
  get queued(): boolean {
    return this.entries.length > 1;
  }

  /** The oldest block is imported: it leaves, and the source may fill its place. */
  done(): void {
    const entry = this.entries.shift();
    if (entry !== undefined) this.bytes -= entry.bytes.length;
    this.wake('filler');
  }

  /** Takes no more from the source (a refused block ended the run). */
  stop(): void {
    this.stopped = true;
    this.entries.length = 0;
    this.wake('filler');
  }

  private full(size: number): boolean {
    return (
      this.entries.length > 0 &&
      (this.entries.length >= IMPORT_WINDOW || this.bytes + size > IMPORT_WINDOW_BYTES)
    );
  }

  private wake(who: 'taker' | 'filler'): void {
    const wake = who === 'taker' ? this.wakeTaker : this.wakeFiller;
    if (who === 'taker') this.wakeTaker = undefined;
    else this.wakeFiller = undefined;
    wake?.();
  }

  private async fill(source: BlockSource): Promise<void> {
    const iterator =
      Symbol.asyncIterator in source
        ? source[Symbol.asyncIterator]()
        : (source as Iterable<Uint8Array>)[Symbol.iterator]();
    try {
      while (!this.stopped) {
        const step = await iterator.next();
        if (step.done === true) return;
        const bytes = step.value;
        while (!this.stopped && this.full(bytes.length)) {
          await new Promise<void>((resolve) => {
            this.wakeFiller = resolve;
          });
        }
        if (this.stopped) break;
        this.entries.push({ bytes, work: verifyAhead(this.core, bytes) });
        this.bytes += bytes.length;
        this.wake('taker');
      }
      // Stopped early: the source is told so (a generator's `finally` runs).
      await iterator.return?.();
    } catch (error) {
      this.failure = { error };
    } finally {
      this.ended = true;
      this.wake('taker');
    }
  }
}

export async function importBlocks(
  core: ImportCore,
  source: BlockSource,
  options: ImportBlocksOptions = {},
): Promise<ImportRun> {
  core.requireStore();
  try {
    // Each block in its own turn of the chain's tasks: what else the chain does goes between.
    return await runWindow(
      core,
      new ImportWindow(core, source),
      (step) => core.tasks.run(step),
      options,
    );
  } finally {
    // Durable at its end: the blocks written behind are synced (a failed write is reported by
    // the store itself, and by the next import).
    if (core.closing === undefined) await core.store?.syncWrites();
  }
}

/**
 * A branch's blocks imported in order inside the caller's task (a reorganisation: rolled back to
 * the fork, it applies the branch), through the same window as an import run: each block decoded,
 * its entries loaded and its signatures checked on the verifier threads while the ones before it
 * apply, and written behind but the last. The first block refused throws its error; the caller
 * syncs the writes.
 */
export async function importBranch(core: ImportCore, blocks: readonly Uint8Array[]): Promise<void> {
  const run = await runWindow(core, new ImportWindow(core, blocks), (step) => step());
  if (run.refused !== undefined) throw run.refused.error;
}

/** The window's blocks imported in order, each in a `turn`; the first refused ends the run. */
async function runWindow(
  core: ImportCore,
  window: ImportWindow,
  turn: <T>(step: () => Promise<T>) => Promise<T>,
  options: ImportBlocksOptions = {},
): Promise<ImportRun> {
  let imported = 0;
  for (;;) {
    const next = await window.oldest();
    if (next === undefined) break;
    let height: number;
    try {
      height = await turn(async () => {
        core.requireStore();
        // Timed from the block's turn (not the wait in the queue), only while someone listens.
        const started = core.importListeners.size > 0 ? performance.now() : undefined;
        await next.work?.checked.settle();
        const executed = await executeImported(core, next.bytes, next.work?.ahead);
        await commitBlock(core, executed, 'imported', window.queued);
        if (started !== undefined) {
          core.notifyEach(core.importListeners, (performance.now() - started) / 1000);
        }
        return executed.header.height;
      });
    } catch (error) {
      window.stop();
      return { imported, refused: { index: imported, bytes: next.bytes, error } };
    }
    window.done();
    const index = imported++;
    options.onImported?.({ index, height, bytes: next.bytes });
  }
  if (window.failure !== undefined) throw window.failure.error;
  return { imported };
}
