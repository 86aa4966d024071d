import { createHash } from 'node:crypto';
import {
  type Chain,
  decodeRecordChunk,
  encodeRecordChunk,
  type ServedSnapshot,
} from '@chain/ledger';

/**
 * Makes `chain` serve snapshots whose first chunk has one bit of a record changed, the manifest
 * made to match the changed chunk: a lying peer whose every chunk matches the manifest it offers,
 * so that only the state root of the snapshot's block can tell. Installed before the node starts
 * (a node takes the snapshots it serves ahead of time, or finds them on disk).
 */
export function forgeServedSnapshots(chain: Chain): void {
  const honest = chain.serveSnapshot.bind(chain);
  const kept = chain.servedSnapshots.bind(chain);
  chain.serveSnapshot = async (dir, signal) => forged(await honest(dir, signal));
  chain.servedSnapshots = async (dir) => Promise.all((await kept(dir)).map(forged));
}

async function forged(served: ServedSnapshot): Promise<ServedSnapshot> {
  const records = decodeRecordChunk(await served.chunk(0)).map((r) => r.slice());
  const first = records[0]!;
  first[first.length - 30]! ^= 1;
  const chunk0 = encodeRecordChunk(records);
  return {
    ...served,
    height: served.height,
    hash: served.hash,
    records: served.records,
    chunkHashes: [createHash('sha256').update(chunk0).digest(), ...served.chunkHashes.slice(1)],
    chunk: async (index) => (index === 0 ? chunk0 : served.chunk(index)),
  };
}
