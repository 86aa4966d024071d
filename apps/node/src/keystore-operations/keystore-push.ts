/**
 * The keyStoreOperations push event: one subscription for every key-store wallet. Each
 * subscription reads the chain block by block from its next height (the subscription's
 * `fromBlock`, or the head's successor for live only) up to the head, whenever a block comes: the
 * history and the live blocks go the same way, so nothing is missed or sent twice at the seam. A
 * block at or below a height already read (a reorganisation, a rollback) sends the operations of
 * the blocks taken off again with `removed: true`, then reads from there. Which operations touch
 * a key-store wallet: keyStoreOperationsOf, a block's addresses looked up together.
 */
import type { Chain } from '@chain/ledger';
import type { PushSubscription } from '@chain/rpc-jayson';
import {
  type KeyStoreLookup,
  type KeyStoreOperation,
  keyStoreOperationsOf,
} from './keystore-operations';

interface Reader {
  readonly push: PushSubscription;
  /** The next height to read. */
  next: number;
  /** The lowest height a block replaced since the reader last looked. */
  rewind: number | undefined;
  running: boolean;
  /** Operations sent, by height, as deep as the chain can roll back. */
  readonly sent: Map<number, KeyStoreOperation[]>;
}

export interface KeyStorePush {
  /** Opens a reader on the subscription; it starts at once. */
  start(push: PushSubscription, fromBlock: number | undefined): void;
  stop(push: PushSubscription): void;
  /** A block was added at `height` (the chain's onBlock). */
  block(height: number): void;
  size(): number;
}

export function createKeyStorePush(
  chain: Pick<Chain, 'blockCount' | 'blockOperations'>,
  keystore: KeyStoreLookup,
  reorgDepth: number,
  onFailure: (push: PushSubscription, error: unknown) => void,
): KeyStorePush {
  const readers = new Map<string, Reader>();

  function sendRemoved(reader: Reader, height: number): void {
    const heights = [...reader.sent.keys()].filter((h) => h >= height).sort((a, b) => b - a);
    for (const h of heights) {
      for (const operation of reader.sent.get(h)!)
        reader.push.send({ ...operation, removed: true });
      reader.sent.delete(h);
    }
  }

  async function read(reader: Reader): Promise<void> {
    while (reader.push.active) {
      if (reader.rewind !== undefined) {
        sendRemoved(reader, reader.rewind);
        reader.next = Math.min(reader.next, reader.rewind);
        reader.rewind = undefined;
      }
      const height = reader.next;
      if (height >= chain.blockCount()) return;
      const found = await keyStoreOperationsOf(await chain.blockOperations(height), keystore);
      if (reader.rewind !== undefined && reader.rewind <= height) continue; // replaced meanwhile
      for (const operation of found) reader.push.send(operation);
      if (found.length > 0) reader.sent.set(height, found);
      reader.sent.delete(height - reorgDepth);
      reader.next = height + 1;
      // As fast as the client reads, not faster (else it would be cut off).
      await reader.push.drained();
    }
  }

  function run(reader: Reader): void {
    if (reader.running) return;
    reader.running = true;
    read(reader)
      .catch((error: unknown) => onFailure(reader.push, error))
      .finally(() => {
        reader.running = false;
        // A block that came while the last read finished: read on.
        if (
          reader.push.active &&
          (reader.rewind !== undefined || reader.next < chain.blockCount())
        ) {
          run(reader);
        }
      });
  }

  return {
    start(push, fromBlock) {
      const reader: Reader = {
        push,
        next: fromBlock ?? chain.blockCount(),
        rewind: undefined,
        running: false,
        sent: new Map(),
      };
      readers.set(push.id, reader);
      run(reader);
    },
    stop(push) {
      readers.delete(push.id);
    },
    block(height) {
      for (const reader of readers.values()) {
        if (height < reader.next) reader.rewind = Math.min(reader.rewind ?? height, height);
        run(reader);
      }
    },
    size() {
      return readers.size;
    },
  };
}
