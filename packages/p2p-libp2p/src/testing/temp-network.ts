import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Chain,
  type ChainOptions,
  createChain,
  createDevGenesis,
  DEV_PRIVATE_KEY,
  type Genesis,
  transferRequest,
} from '@chain/ledger';
import type { P2PNode } from '../p2p-api';
import { createP2PNode } from '../p2p-node';
import type { P2PNodeOptions } from '../p2p-options';

/** A chain on a temp dir and a P2P node for it on a loopback address of its own (127.0.0.x). */
export interface TestPeer {
  chain: Chain;
  p2p: P2PNode;
  host: string;
  dir: string;
  address(): string;
  /** Closes the P2P node and opens a new one on the same chain and directory (a node restarted). */
  restartP2P(): Promise<void>;
  /** Closes the node and the chain and removes the directory. */
  cleanup(): Promise<void>;
}

/** Node options over the test defaults, and the genesis of the chain (the dev one by default). */
export type TestPeerOptions = Partial<Omit<P2PNodeOptions, 'chain' | 'dir'>> & {
  genesis?: Genesis;
  /** Options of the peer's chain (its mempool's limits). */
  chainOptions?: Partial<Omit<ChainOptions, 'dataDir' | 'genesis'>>;
};

export async function openTestPeer(
  host: string,
  { chainOptions, ...options }: TestPeerOptions = {},
): Promise<TestPeer> {
  const dir = await mkdtemp(join(tmpdir(), 'p2p-test-'));
  const chain = createChain({
    ...chainOptions,
    dataDir: join(dir, 'chain'),
    genesis: options.genesis ?? createDevGenesis(),
  });
  await chain.open();
  const node = () =>
    createP2PNode({
      chain,
      dir: join(dir, 'p2p'),
      host,
      port: 0,
      appVersion: 'test',
      netProtocol: { ver: 1, ver_a: 0 },
      statusIntervalMs: 500,
      dialIntervalMs: 200,
      startupGraceMs: 500,
      ...options,
    });
  const peer: TestPeer = {
    chain,
    p2p: node(),
    host,
    dir,
    address: () => `${host}:${peer.p2p.listenPort}`,
    async restartP2P() {
      await peer.p2p.close();
      peer.p2p = node();
    },
    async cleanup() {
      await peer.p2p.close();
      await chain.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return peer;
}

/** A dev-account transfer to a fresh address. */
export function sendFromDev(chain: Chain, amount = 1n) {
  return chain.signAndSubmit(
    transferRequest(
      { signer: chain.accountByNumber(0)!.address, privateKey: DEV_PRIVATE_KEY },
      {
        receiver: { hash160: new Uint8Array(randomBytes(20)) },
        amount,
        payloadType: 0,
        payload: new Uint8Array(0),
      },
    ),
  );
}

/** `count` blocks of one transfer each, produced with the dev key. */
export async function growChain(chain: Chain, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await sendFromDev(chain, BigInt(i + 1));
    await chain.produceBlock(DEV_PRIVATE_KEY);
  }
}

/** Both chains end in the same block. */
export function sameHead(a: TestPeer, b: TestPeer): boolean {
  return Buffer.compare(a.chain.head().hash, b.chain.head().hash) === 0;
}

export async function waitUntil(
  what: string,
  probe: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
