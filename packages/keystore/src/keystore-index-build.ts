import type { Forget, KeyIndex, SyncCounts } from './key-index-api';
import type { IndexBuildProgress } from './keystore-api';

/** The passes of a key store over its directory: the background build and walletRefresh's. */
export interface DirectoryPasses {
  /**
   * One whole pass (new names read, names gone dropped), in batches that calls interleave with;
   * one pass at a time. `background`: the build (counted first, progress told).
   */
  scan(started: number, background: boolean): Promise<SyncCounts & { completed: boolean }>;
  /** Starts the background build of the index for session `started`. */
  startBuild(started: number): void;
  /**
   * A pass in the background over an index the directory did not outdate at open (not a build:
   * calls do not wait for it, nothing is told); walletRefresh comes after it.
   */
  verify(started: number): void;
  /** Whether the background build runs (a wallet not indexed yet is then looked for by name). */
  building(): boolean;
  /** Resolves when no background pass (a build, a verification) runs. */
  built(): Promise<void>;
  /** The build's progress while it runs (or its error once it stopped short), else null. */
  progress(): IndexBuildProgress | null;
  /** Forgets the progress (the store closed). */
  reset(): void;
}

export interface DirectoryPassesOptions {
  index: KeyIndex;
  forget: Forget;
  /** Whether the store is still in session `started` (a pass stops when it is not). */
  inSession(started: number): boolean;
  /**
   * Runs an index change under the store's directory queue, in session `started` (throws if the
   * store closed); told of counts, so the store's revision moves.
   */
  exclusive(started: number, run: () => Promise<SyncCounts>): Promise<SyncCounts>;
  /** Runs a whole pass in the store's queue of passes (one at a time). */
  onePass<T>(run: () => Promise<T>): Promise<T>;
  onIndexProgress?: ((progress: IndexBuildProgress) => void) | undefined;
}

export function createDirectoryPasses(options: DirectoryPassesOptions): DirectoryPasses {
  const { index, forget, inSession, exclusive, onePass, onIndexProgress } = options;
  let building: Promise<void> | undefined;
  let verifying: Promise<unknown> | undefined;
  let buildToken: object | undefined;
  let progress: IndexBuildProgress | null = null;

  function scan(started: number, background: boolean) {
    return onePass(() =>
      index.scan({
        forget,
        stopped: () => !inSession(started),
        countFirst: background,
        exclusive: (run) => exclusive(started, run),
        ...(background
          ? {
              progress: (done: { done: number; total: number }) => {
                progress = { ...done, finished: false };
                onIndexProgress?.(progress);
              },
            }
          : {}),
      }),
    );
  }

  return {
    scan,

    startBuild(started) {
      progress = { done: 0, total: 0, finished: false };
      const token = {};
      buildToken = token;
      building = (async () => {
        try {
          const result = await scan(started, true);
          if (!result.completed) return;
          const last = progress ?? { done: 0, total: 0, finished: false };
          progress = null;
          onIndexProgress?.({ ...last, finished: true });
        } catch (error) {
          if (!inSession(started)) return;
          const message = error instanceof Error ? error.message : String(error);
          progress = { ...(progress ?? { done: 0, total: 0 }), finished: true, error: message };
          onIndexProgress?.(progress);
        } finally {
          if (buildToken === token) building = undefined;
        }
      })();
    },

    verify(started) {
      const pass = scan(started, false).catch(() => undefined);
      verifying = pass;
      pass.then(() => {
        if (verifying === pass) verifying = undefined;
      });
    },

    building: () => building !== undefined,

    async built() {
      await building?.catch(() => undefined);
      await verifying;
    },

    progress: () => progress,

    reset() {
      progress = null;
    },
  };
}
