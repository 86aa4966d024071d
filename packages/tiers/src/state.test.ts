import { bytesToHex } from '@chain/crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  expirySpace,
  type NodeState,
  type NodeTree,
  type Participant,
  participantSpace,
  treeSpace,
  walletIndexSpace,
} from './state';

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const states: NodeState[] = ['TH', 'TR', 'MN', 'MW', 'MH', 'MV', 'MA', 'BW', 'BA'];

const participantArb: fc.Arbitrary<Participant> = fc.record({
  code: fc.uint8Array({ minLength: 8, maxLength: 8 }).map(bytesToHex),
  state: fc.constantFrom(...states),
  account: u32,
  miner: u32,
  parent: u32,
  stake: fc.bigInt({ min: 0n, max: 2n ** 200n }),
  extension: fc.boolean(),
  nodeIndex: u32,
  startHeight: u32,
  startTimestamp: u32,
  endHeight: u32,
  children: fc.array(u32, { maxLength: 20 }),
});

const treeArb: fc.Arbitrary<NodeTree> = fc.record({
  top: u32,
  penalty: fc.integer({ min: 0, max: 100 }),
  nextIndex: u32,
  mine: u32,
  share: u32,
  nodes: fc.array(fc.ipV4(), { maxLength: 10 }),
});

describe('state spaces', () => {
  it('round-trip participants, trees, wallet claims and expiry lists canonically', () => {
    fc.assert(
      fc.property(participantArb, treeArb, u32, fc.array(u32), (p, t, claim, due) => {
        expect(participantSpace.decode(participantSpace.encode(p))).toEqual(p);
        expect(treeSpace.decode(treeSpace.encode(t))).toEqual(t);
        expect(walletIndexSpace.decode(walletIndexSpace.encode(claim))).toBe(claim);
        expect(expirySpace.decode(expirySpace.encode(due))).toEqual(due);
        // Canonical: decoding then encoding gives the same bytes.
        const bytes = participantSpace.encode(p);
        expect(participantSpace.encode(participantSpace.decode(bytes))).toEqual(bytes);
      }),
    );
  });

  it('refuses trailing bytes and unknown states', () => {
    const p: Participant = {
      code: '0011223344556677',
      state: 'MA',
      account: 1,
      miner: 2,
      parent: 0,
      stake: 5n,
      extension: false,
      nodeIndex: 1,
      startHeight: 1,
      startTimestamp: 2,
      endHeight: 3,
      children: [],
    };
    const bytes = participantSpace.encode(p);
    expect(() => participantSpace.decode(Uint8Array.from([...bytes, 0]))).toThrow(
      expect.objectContaining({ reason: 'TRAILING_BYTES' }),
    );
    const badState = bytes.slice();
    badState[8] = 99;
    expect(() => participantSpace.decode(badState)).toThrow(
      expect.objectContaining({ reason: 'BAD_STATE' }),
    );
  });

  it('clones deeply enough that a change to a copy leaves the original alone', () => {
    fc.assert(
      fc.property(participantArb, treeArb, (p, t) => {
        const pc = participantSpace.clone(p);
        pc.children.push(1);
        expect(pc.children.length).toBe(p.children.length + 1);
        const tc = treeSpace.clone(t);
        tc.nodes.push('10.0.0.1');
        expect(tc.nodes.length).toBe(t.nodes.length + 1);
      }),
    );
  });
});
