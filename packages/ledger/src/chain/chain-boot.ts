import { decodeAddress, ErrorCode, equalBytes } from '@chain/crypto';
import {
  type BlockHeader,
  computeBlockHash,
  decodeBlock,
  encodeBlock,
  encodeBlockHeader,
  ZERO_HASH,
} from '../block/block';
import { plainBytes } from '../codec/byte-reader';
import { StoreError } from '../errors';
import { decodeOperation } from '../operation/operation';
import { decodeAccount } from '../state/account';
import { collectChanges, nextStateRoot } from '../state/block-changes';
import { numberKey, StateLayer } from '../state/state-layer';
import { adoptCommitted, writeChanges } from './block-commit';
import type { ChainCore } from './chain-core';
import { decodeHead, encodeHead, type HeadState, notOpen } from './chain-records';
import { Journal, type JournalRecord } from './journal';
import { admit } from './mempool-admission';
import {
  decodeProducerList,
  ENTRY_ACCOUNT,
  ENTRY_PRODUCERS,
  ENTRY_SPACE,
  encodeProducerList,
  PRODUCERS_KEY,
  StateChecksum,
  spaceChecksumKey,
} from './state-checksum';
import {
  ChainStore,
  heightKey,
  META_GENESIS,
  META_HEAD,
  META_LEGACY_CHECKSUM,
  META_PRODUCERS,
  META_STATE_CHECKSUM,
  readHeightKey,
} from './store';

/**
 * Boot and shutdown: a new data directory gets block 0 from the genesis document; an existing one is
 * loaded and checked against its head record and state checksum; then the journal's operations
 * return to the mempool.
 */

export function openChain(core: ChainCore): Promise<void> {
  if (core.closing) return Promise.reject(notOpen());
  core.opening ??= doOpen(core).catch(async (error) => {
    const store = core.store;
    core.store = undefined;
    core.opening = undefined;
    await store?.close().catch(() => undefined);
    throw error;
  });
  return core.opening;
}

export function closeChain(core: ChainCore): Promise<void> {
  core.closing ??= (async () => {
    await core.opening?.catch(() => undefined);
    await core.tasks.idle();
    const store = core.store;
    core.store = undefined;
    core.journal = undefined;
    await core.verifier.close();
    await store?.close();
  })();
  return core.closing;
}

async function doOpen(core: ChainCore): Promise<void> {
  core.registry.seal();
  const store = await ChainStore.open(core.dataDir);
  store.onFailure = (error) => core.notifyEach(core.storeFailureListeners, error);
  core.store = store;
  const storedGenesis = await store.read(store.meta, META_GENESIS);
  if (storedGenesis === undefined) {
    await initialiseGenesis(core, store);
  } else if (!equalBytes(storedGenesis, core.genesisHash)) {
    throw new StoreError(
      ErrorCode.NOT_ALLOWED,
      'GENESIS_MISMATCH',
      `data directory ${core.dataDir} holds a chain of another genesis (${Buffer.from(storedGenesis).toString('hex')}), not ${Buffer.from(core.genesisHash).toString('hex')}`,
    );
  } else {
    const loaded = await loadState(core, store);
    const weight = await core.clique.load(store, loaded.root.producers(), loaded.head.height);
    core.root = loaded.root;
    adoptCommitted(core, loaded.head, loaded.checksum, weight);
  }
  core.journal = await Journal.open(store);
  await replayJournal(core);
}

/** Block 0: the genesis accounts (numbers in order) and producers, in one batch. */
async function initialiseGenesis(core: ChainCore, store: ChainStore): Promise<void> {
  const { genesis, prefix } = core;
  const layer = core.root.child();
  for (const entry of genesis.accounts) {
    const account = layer.createAccount(decodeAddress(entry.address, prefix).hash160);
    account.balance = entry.balance;
    if (entry.publicKey !== undefined) {
      account.publicKey = Uint8Array.from(Buffer.from(entry.publicKey, 'hex'));
    }
  }
  const producers = genesis.producers.map((p) => layer.numberOf(decodeAddress(p, prefix).hash160)!);
  layer.setProducers(producers.sort((a, b) => a - b));
  const changes = collectChanges(layer, core.registry);
  const header: BlockHeader = {
    height: 0,
    prevHash: ZERO_HASH,
    timestamp: genesis.timestamp,
    producer: layer.producerList![0]!,
    opsRoot: ZERO_HASH,
    stateRoot: nextStateRoot(core.genesisHash, changes, core.hashes),
    ver: genesis.ver,
    ver_a: genesis.ver_a,
    payload: new Uint8Array(0),
  };
  // Block 0 is defined by the genesis document, not signed by anyone.
  const headerBytes = encodeBlockHeader(header);
  const signature = new Uint8Array(64);
  const hash = computeBlockHash(headerBytes, signature, core.hashes);
  const bytes = encodeBlock(headerBytes, signature, []);
  const batch = store.batch();
  const checksum = new StateChecksum();
  // Before block 0 the state holds one entry: the empty producer set.
  checksum.add(ENTRY_PRODUCERS, PRODUCERS_KEY, encodeProducerList([]));
  writeChanges(core, batch, changes, checksum);
  const head = { height: 0, hash, timestamp: header.timestamp, stateRoot: header.stateRoot };
  batch.put(heightKey(0), bytes, { sublevel: store.blocks });
  batch.put(hash, heightKey(0), { sublevel: store.hashes });
  batch.put(META_HEAD, encodeHead(head), { sublevel: store.meta });
  batch.put(META_STATE_CHECKSUM, checksum.toBytes(), { sublevel: store.meta });
  batch.put(META_GENESIS, core.genesisHash, { sublevel: store.meta });
  core.clique.writeWeight(batch, store, 0);
  await store.commit(batch);
  layer.mergeIntoParent();
  adoptCommitted(core, head, checksum, 0);
}

/** The committed state of an existing data directory, checked against its head record. */
async function loadState(
  core: ChainCore,
  store: ChainStore,
): Promise<{ root: StateLayer; checksum: StateChecksum; head: HeadState }> {
  const corrupt = (what: string, cause?: unknown): StoreError =>
    new StoreError(
      ErrorCode.INVALID_DATA,
      'CORRUPT_DATADIR',
      `the chain database in ${core.dataDir} is damaged: ${what}`,
      cause === undefined ? {} : { cause },
    );
  const root = new StateLayer();
  const checksum = new StateChecksum();
  try {
    const accounts = store.accounts.iterator();
    try {
      for (;;) {
        const entries = await accounts.nextv(4096);
        if (entries.length === 0) break;
        for (const [key, value] of entries) {
          const number = readHeightKey(key);
          if (number !== root.accounts.size) throw corrupt(`account ${number} out of sequence`);
          const account = decodeAccount(number, value);
          root.accounts.set(number, account);
          root.numbers.set(numberKey(account.hash160), number);
          checksum.add(ENTRY_ACCOUNT, key, value);
        }
      }
    } finally {
      await accounts.close();
    }
    root.nextNumber = root.accounts.size;
    for await (const [key, value] of store.spaces.iterator()) {
      const split = key.indexOf('\u0000');
      const name = key.slice(0, split);
      const space = core.registry.space(name);
      if (space === undefined) {
        throw corrupt(`state space '${name}' is in the database but not registered`);
      }
      root.spaceSet(name, key.slice(split + 1), space.decode(plainBytes(value)));
      checksum.add(ENTRY_SPACE, spaceChecksumKey(key), value);
    }
    const producers = await store.read(store.meta, META_PRODUCERS);
    if (producers === undefined) throw corrupt('no producer set');
    root.setProducers(decodeProducerList(producers));
    checksum.add(ENTRY_PRODUCERS, PRODUCERS_KEY, producers);
    const headBytes = await store.read(store.meta, META_HEAD);
    if (headBytes === undefined) throw corrupt('no head record');
    const head = decodeHead(headBytes);
    const blockBytes = await store.read(store.blocks, heightKey(head.height));
    if (blockBytes === undefined) throw corrupt(`head block ${head.height} is missing`);
    const block = decodeBlock(blockBytes, core.hashes);
    if (!equalBytes(block.hash, head.hash) || !equalBytes(block.header.stateRoot, head.stateRoot)) {
      throw corrupt(`head block ${head.height} does not match the head record`);
    }
    const stored = await store.read(store.meta, META_STATE_CHECKSUM);
    if (stored === undefined) await adoptLegacyChecksum(store, checksum, corrupt);
    else if (!StateChecksum.fromBytes(stored)?.equals(checksum)) {
      throw corrupt(`the stored state does not match the state root of head block ${head.height}`);
    }
    return { root, checksum, head };
  } catch (error) {
    if (error instanceof StoreError) throw error;
    throw corrupt((error as Error).message, error);
  }
}

/**
 * A data directory written before the CRC checksum holds a SHA-256 one under another key, which
 * this version does not compute: its state is taken as loaded and the new checksum written, so
 * every later open checks it.
 */
async function adoptLegacyChecksum(
  store: ChainStore,
  checksum: StateChecksum,
  corrupt: (what: string) => StoreError,
): Promise<void> {
  if ((await store.read(store.meta, META_LEGACY_CHECKSUM)) === undefined) {
    throw corrupt('no state checksum');
  }
  const batch = store.batch();
  batch.put(META_STATE_CHECKSUM, checksum.toBytes(), { sublevel: store.meta });
  batch.del(META_LEGACY_CHECKSUM, { sublevel: store.meta });
  await store.commit(batch);
}

/** Re-admits journaled operations; those on chain or now invalid are dropped from the journal. */
async function replayJournal(core: ChainCore): Promise<void> {
  const journal = core.journal!;
  const dropped: JournalRecord[] = [];
  for (const { record, ops } of await journal.records()) {
    if (ops.length === 0) dropped.push({ ...record, remaining: 1 });
    for (const bytes of ops) {
      try {
        admit(core, decodeOperation(bytes, core.registry, core.hashes), record);
      } catch {
        dropped.push(record);
      }
    }
  }
  await journal.release(dropped);
}
