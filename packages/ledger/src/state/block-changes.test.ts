import { LtHash } from '@chain/crypto';
import { nativeHashes } from '@chain/crypto/native';
import { describe, expect, it } from 'vitest';
import { createEmptyRegistry, type StateSpace } from '../operation/registry';
import { encodeAccount } from './account';
import {
  type BlockChanges,
  changesOfUndo,
  collectChanges,
  decodeUndo,
  encodeUndo,
  type StateAfter,
} from './block-changes';
import { StateLattice } from './state-lattice';
import { DELETED, StateLayer } from './state-layer';

const memo: StateSpace<string> = {
  name: 'memo',
  encode: (value) => new TextEncoder().encode(value),
  decode: (bytes) => new TextDecoder().decode(bytes),
  clone: (value) => value,
};

const hash = (n: number) => new Uint8Array(20).fill(n);

/** A state of three accounts, two memo entries and a producer set, as a root layer. */
function startState(): StateLayer {
  const root = new StateLayer();
  for (let n = 1; n <= 3; n++) root.createAccount(hash(n)).balance = BigInt(n) * 100n;
  root.spaceSet('memo', 'kept', 'old');
  root.spaceSet('memo', 'gone', 'doomed');
  root.setProducers([0]);
  return root;
}

/** A block's layer: one account changed, one created, one memo entry changed, one deleted, one new. */
function blockOn(root: StateLayer): StateLayer {
  const layer = root.child();
  layer.editAccount(1)!.balance = 7n;
  layer.createAccount(hash(9)).balance = 5n;
  layer.spaceSet('memo', 'kept', 'new');
  layer.spaceSet('memo', 'gone', DELETED);
  layer.spaceSet('memo', 'born', 'fresh');
  layer.setProducers([0, 1]);
  return layer;
}

/** The state a layer reads, in stored encodings (what a rollback reads as the state a block left). */
function stateOf(view: StateLayer): StateAfter {
  return {
    accountBytes: (number) => {
      const account = view.account(number);
      return account === undefined ? undefined : encodeAccount(account);
    },
    spaceBytes: (space, key) => {
      const value = view.spaceGet(space, key);
      return value === undefined || value === DELETED ? undefined : memo.encode(value as string);
    },
    producers: () => view.producers(),
  };
}

function plain(changes: BlockChanges) {
  return { accounts: changes.accounts, spaces: changes.spaces, producers: changes.producers };
}

describe("a block's state change and its inverse", () => {
  const registry = createEmptyRegistry();
  registry.registerSpace(memo);
  const lattice = new StateLattice(nativeHashes);

  it('moves the state vector back to where the block started', () => {
    const changes = collectChanges(blockOn(startState()), registry);
    expect(changes.accounts.map((a) => [a.number, a.before === undefined])).toEqual([
      [1, false],
      [3, true],
    ]);
    const start = LtHash.identity();
    const after = lattice.apply(start, changes);
    expect(after.equals(start)).toBe(false);
    expect(lattice.apply(after, changes.inverse()).equals(start)).toBe(true);
    // Creations become removals and the reverse; every entry's before and after swap.
    const inverse = changes.inverse();
    expect(inverse.accounts[1]).toMatchObject({ number: 3, afterBytes: undefined });
    expect(inverse.spaces.find((s) => s.key === 'gone')?.afterBytes).toEqual(memo.encode('doomed'));
    expect(inverse.producers).toEqual({ before: [0, 1], after: [0] });
    expect(plain(inverse.inverse())).toEqual(plain(changes));
  });

  it('is rebuilt from the undo record stored and the state the block left', () => {
    const root = startState();
    const layer = blockOn(root);
    const changes = collectChanges(layer, registry);
    const undo = decodeUndo(encodeUndo(changes));
    const rebuilt = changesOfUndo(undo, stateOf(layer));
    expect(plain(rebuilt)).toEqual(plain(changes));
    // The created account's address comes from the state it left.
    expect(rebuilt.accounts[1]!.hash160).toEqual(hash(9));
  });
});
