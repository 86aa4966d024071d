import type { TaskQueue } from '../chain-records';

/** What a read needs to know that no rollback ran beside it. */
export interface RollbackSeen {
  /**
   * Odd while a rollback writes (from its batch to the head it leaves), even otherwise; two bumps
   * per rollback. Rollbacks run in `tasks`.
   */
  rollbacks: number;
  readonly tasks: TaskQueue;
}

/** Reads tried beside the chain's tasks before one waits its turn among them. */
const OPTIMISTIC_READS = 2;

/**
 * A read that spans awaits (a history page reads the index, then blocks) sees one chain: a
 * rollback between its reads could take a block away (the read would fail as if the data directory
 * were corrupt) or put another one at the same height (it would list operations of a block no
 * longer there). Such a read is done again once the rollback is over; after OPTIMISTIC_READS torn
 * reads it runs as one of the chain's tasks, which no rollback can overlap.
 */
export async function readOneChain<T>(core: RollbackSeen, read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; attempt < OPTIMISTIC_READS; attempt++) {
    const before = core.rollbacks;
    const untorn = () => before % 2 === 0 && core.rollbacks === before;
    try {
      const result = await read();
      if (untorn()) return result;
    } catch (error) {
      if (untorn()) throw error;
    }
    await core.tasks.idle();
  }
  return core.tasks.run(read);
}
