import { decodeAddress } from '@chain/crypto';
import { type Chain, DEV_PRIVATE_KEY, transferRequest } from '@chain/ledger';
import {
  COIN,
  fundAndActivate,
  namespacedWallet,
  openTempChain,
  type TempChain,
  type TestWallet,
  transferTo,
} from '@chain/ledger/testing';
import { CREATE_TOKEN_OPTYPE, SEND_TOKEN_SUBTYPE, TOKEN_OPTYPE } from '@chain/tokens';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createNodeRegistry } from './registry';

/**
 * Issue 44, "equivalence first": blocks produced from the pool, whatever path production takes
 * (today: each operation applied again; apply-once: from the deltas admission computed), are the
 * blocks a full re-execution makes. A producer chain takes random mixes of transfers, token
 * transfers and activations; a peer produces blocks that make some of its pending operations
 * invalid, and longer branches that reorganise it (its block's operations back in the pool); it
 * restarts (its pool replayed from the journal). A third chain then imports every
 * block the producer made, re-executing each operation, and must end on the same state root; the
 * producer's pool after a restart must be the pool before it.
 */

const WALLETS = Array.from({ length: 5 }, (_, i) => namespacedWallet('equivalence', `w${i}`));
const ACT = 10n ** 14n;

type Command =
  | { kind: 'transfer'; from: number; to: number; amount: number }
  | { kind: 'token'; from: number; to: number; amount: number }
  | { kind: 'activate' }
  | { kind: 'block'; max: number }
  | { kind: 'peer'; from: number }
  | { kind: 'reorg'; from: number }
  | { kind: 'restart' };

const wallet = fc.integer({ min: 0, max: WALLETS.length - 1 });
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('transfer' as const),
      from: wallet,
      to: fc.integer({ min: -1, max: WALLETS.length - 1 }),
      amount: fc.integer({ min: 1, max: 1_000 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('token' as const),
      from: wallet,
      to: wallet,
      amount: fc.integer({ min: 1, max: 50 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'activate' as const }) },
  {
    weight: 2,
    // 0: the whole pool; else a block smaller than it, so that entries wait across blocks.
    arbitrary: fc.record({
      kind: fc.constant('block' as const),
      max: fc.integer({ min: 0, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('peer' as const), from: wallet }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reorg' as const), from: wallet }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

/** Over all runs: what the runs exercised, so that a run of nothing passes no one's notice. */
const tally = {
  mined: 0,
  droppedByPeer: 0,
  restartsWithPending: 0,
  tokenTransfers: 0,
  reorgs: 0,
  partialBlocks: 0,
  merged: 0,
  reapplied: 0,
};

/** The chain's pool, as far as this test looks into it. */
interface PoolInternals {
  mempool: {
    layer: { account(n: number): { balance: bigint; nOperation: number } | undefined };
    applyOnce: { merged: number; reapplied: number; rechecked: number };
  };
}

/**
 * The pending state of the test's wallets (balance and n_operation): what the pool kept across
 * blocks must be what applying every pending operation again to the committed state gives.
 */
function pendingView(chain: Chain): string[] {
  const pool = (chain as unknown as PoolInternals).mempool;
  return WALLETS.map((w) => {
    const number = chain.walletInfo(w.address).account;
    const account = typeof number === 'number' ? pool.layer.account(number) : undefined;
    return `${w.address} ${account?.balance} ${account?.nOperation}`;
  });
}

let fresh = 0;
const freshWallet = () => namespacedWallet('equivalence-fresh', `f${fresh++}-${Date.now()}`);

function transfer(chain: Chain, from: TestWallet, to: string, amount: bigint) {
  return chain.signAndSubmit(
    transferRequest({ signer: from.address, privateKey: from.privateKey }, transferTo(to, amount)),
  );
}

function sendToken(chain: Chain, from: TestWallet, token: string, to: string, amount: bigint) {
  return chain.signAndSubmit({
    optype: TOKEN_OPTYPE,
    subtype: SEND_TOKEN_SUBTYPE,
    signer: from.address,
    privateKey: from.privateKey,
    body: {
      token: decodeAddress(token).hash160,
      receiver: decodeAddress(to).hash160,
      amount,
      payloadType: 0,
      payload: new Uint8Array(0),
    },
  });
}

/** Submits; a refusal (a rule of the state the pool is in) is part of the run, not a failure. */
async function attempt(submit: () => Promise<unknown>): Promise<void> {
  try {
    await submit();
  } catch (error) {
    if (typeof (error as { code?: unknown }).code !== 'number') throw error;
  }
}

/** Imports the blocks of `from` above `to`'s head into `to`. */
async function follow(to: Chain, from: Chain): Promise<void> {
  for (let h = to.blockCount(); h < from.blockCount(); h++) {
    await to.importBlock((await from.getBlockBytes(h))!);
  }
}

async function producedBlocksMatchReExecution(commands: readonly Command[]): Promise<void> {
  const registry = createNodeRegistry;
  let producer: TempChain = await openTempChain({
    registry: registry(),
    dirPrefix: 'equivalence-',
    verifyThreads: 0,
  });
  const peer = await openTempChain({
    registry: registry(),
    dirPrefix: 'equivalence-',
    verifyThreads: 0,
  });
  const replay = await openTempChain({
    registry: registry(),
    dirPrefix: 'equivalence-',
    verifyThreads: 0,
  });
  const producerDir = producer.dir;
  try {
    await fundAndActivate(producer.chain, WALLETS, 100n * COIN);
    const created = (await producer.chain.signAndSubmit({
      optype: CREATE_TOKEN_OPTYPE,
      signer: WALLETS[0]!.address,
      privateKey: WALLETS[0]!.privateKey,
      body: {
        advanced: true,
        decimal: 2,
        supply: 1_000_000n,
        name: 'Equivalence',
        symbol: 'EQV',
        summary: 'a token for the equivalence test',
      },
    })) as { token?: unknown };
    const token = String(created.token);
    await producer.chain.produceBlock(DEV_PRIVATE_KEY);
    for (const to of WALLETS.slice(1))
      await sendToken(producer.chain, WALLETS[0]!, token, to.address, 10_000n);
    await producer.chain.produceBlock(DEV_PRIVATE_KEY);
    await follow(peer.chain, producer.chain);

    for (const step of commands) {
      const chain = producer.chain;
      switch (step.kind) {
        case 'transfer': {
          const to = step.to < 0 ? freshWallet().address : WALLETS[step.to]!.address;
          await attempt(() => transfer(chain, WALLETS[step.from]!, to, BigInt(step.amount) * ACT));
          break;
        }
        case 'token':
          await attempt(() =>
            sendToken(
              chain,
              WALLETS[step.from]!,
              token,
              WALLETS[step.to]!.address,
              BigInt(step.amount),
            ),
          );
          break;
        case 'activate': {
          const added = freshWallet();
          await attempt(() => transfer(chain, WALLETS[0]!, added.address, 2n * COIN));
          await attempt(() =>
            chain.signAndSubmit({
              optype: 5,
              signer: added.address,
              privateKey: added.privateKey,
              body: {},
            }),
          );
          break;
        }
        case 'block':
          if (chain.pendingCount() > 0) {
            if (step.max > 0 && chain.pendingCount() > step.max) tally.partialBlocks++;
            await chain.produceBlock(
              DEV_PRIVATE_KEY,
              step.max > 0 ? { maxOperations: step.max } : {},
            );
            await follow(peer.chain, chain);
          }
          break;
        case 'peer': {
          // The peer spends the wallet's next n_operation first: what the producer holds of that
          // wallet pending is no longer valid once it takes the peer's block.
          await follow(peer.chain, chain);
          await attempt(() => transfer(chain, WALLETS[step.from]!, freshWallet().address, ACT));
          await attempt(() =>
            transfer(
              peer.chain,
              WALLETS[step.from]!,
              WALLETS[(step.from + 1) % WALLETS.length]!.address,
              99n * COIN,
            ),
          );
          if (peer.chain.pendingCount() > 0) {
            await peer.chain.produceBlock(DEV_PRIVATE_KEY);
            const pendingBefore = chain.pendingCount();
            await follow(chain, peer.chain);
            tally.droppedByPeer += pendingBefore - chain.pendingCount();
          }
          break;
        }
        case 'reorg': {
          // The producer's next block loses to a longer branch of the peer's from the same parent:
          // its operations return to the pool, on the branch's state.
          await follow(peer.chain, chain);
          const fork = chain.blockCount() - 1;
          if (chain.pendingCount() === 0) {
            await transfer(chain, WALLETS[step.from]!, freshWallet().address, ACT);
          }
          await chain.produceBlock(DEV_PRIVATE_KEY);
          const length = chain.blockCount() - fork;
          for (let i = 0; i < length; i++) {
            await transfer(
              peer.chain,
              WALLETS[(step.from + i) % WALLETS.length]!,
              WALLETS[(step.from + i + 1) % WALLETS.length]!.address,
              ACT,
            );
            await peer.chain.produceBlock(DEV_PRIVATE_KEY);
          }
          const branch: Uint8Array[] = [];
          for (let h = fork + 1; h < peer.chain.blockCount(); h++) {
            branch.push((await peer.chain.getBlockBytes(h))!);
          }
          const result = await chain.reorganize(fork, branch);
          expect(result.adopted).toBe(true);
          expect(chain.head().hash).toEqual(peer.chain.head().hash);
          tally.reorgs++;
          break;
        }
        case 'restart': {
          const before = chain.pendingOperations().map((op) => op.ophash);
          const viewBefore = pendingView(chain);
          if (before.length > 0) tally.restartsWithPending++;
          const { applyOnce } = (chain as unknown as PoolInternals).mempool;
          tally.merged += applyOnce.merged;
          tally.reapplied += applyOnce.reapplied;
          await chain.close();
          producer = await openTempChain({
            registry: registry(),
            dataDir: producerDir,
            verifyThreads: 0,
          });
          expect(producer.chain.pendingOperations().map((op) => op.ophash)).toEqual(before);
          expect(pendingView(producer.chain)).toEqual(viewBefore);
          break;
        }
      }
    }
    const { applyOnce } = (producer.chain as unknown as PoolInternals).mempool;
    tally.merged += applyOnce.merged;
    tally.reapplied += applyOnce.reapplied;
    for (let i = 0; i < 10 && producer.chain.pendingCount() > 0; i++) {
      await producer.chain.produceBlock(DEV_PRIVATE_KEY);
    }
    expect(producer.chain.pendingCount()).toBe(0);

    // Full re-execution of every block the producer made (or took from the peer).
    await follow(replay.chain, producer.chain);
    expect(replay.chain.blockCount()).toBe(producer.chain.blockCount());
    expect(Buffer.from(replay.chain.stateRoot()).toString('hex')).toBe(
      Buffer.from(producer.chain.stateRoot()).toString('hex'),
    );
    expect(replay.chain.head().hash).toEqual(producer.chain.head().hash);
    for (let h = 3; h < producer.chain.blockCount(); h++) {
      const ops = await producer.chain.blockOperations(h);
      tally.mined += ops.length;
      tally.tokenTransfers += ops.filter((op) => op.optype === TOKEN_OPTYPE).length;
    }
  } finally {
    await producer.chain.close();
    await producer.cleanup();
    await peer.cleanup();
    await replay.cleanup();
  }
}

describe('blocks produced from the pool', () => {
  it('are the blocks a full re-execution makes, over mixed operations, peer blocks, reorganisations and restarts', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(command, { minLength: 5, maxLength: 30 }),
        producedBlocksMatchReExecution,
      ),
      { numRuns: 8 },
    );
    expect(tally.mined).toBeGreaterThan(50);
    expect(tally.tokenTransfers).toBeGreaterThan(5);
    expect(tally.droppedByPeer).toBeGreaterThan(0);
    expect(tally.restartsWithPending).toBeGreaterThan(0);
    expect(tally.reorgs).toBeGreaterThan(0);
    expect(tally.partialBlocks).toBeGreaterThan(0);
    // Both ways a block takes an entry were taken: from its delta, and applied again.
    expect(tally.merged).toBeGreaterThan(50);
    expect(tally.reapplied).toBeGreaterThan(0);
  }, 240_000);
});
