import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex } from '@chain/crypto';
import { nativeHashes, nativeSecp256k1 } from '@chain/crypto/native';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Block,
  type BlockHeader,
  blockSigningHash,
  decodeBlock,
  encodeBlock,
  encodeBlockHeader,
} from '../../block/block';
import { createDevGenesis, genesisHash } from '../../genesis';
import { createRegistry } from '../../operation/ledger-registry';
import type { OperationRegistry } from '../../operation/registry';
import { joinProducersType } from '../../testing/join-producers';
import {
  COIN,
  devWallet,
  fundAndActivate,
  openTempChain,
  payFromDev,
  testWallet,
} from '../../testing/temp-chain';
import type { Chain } from '../chain';
import { HeaderChain } from './header-chain';

const GENESIS_HASH = genesisHash(createDevGenesis());
const context = { genesisHash: GENESIS_HASH, hashes: nativeHashes, secp: nativeSecp256k1 };

function joiningRegistry(): OperationRegistry {
  const registry = createRegistry();
  registry.register(joinProducersType);
  return registry;
}

const alice = testWallet('header-chain alice');

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function tempChain(): Promise<Chain> {
  const t = await openTempChain({ registry: joiningRegistry() });
  cleanups.push(t.cleanup);
  return t.chain;
}

async function blocksOf(chain: Chain, from = 0): Promise<Block[]> {
  const blocks: Block[] = [];
  for (let h = from; h < chain.blockCount(); h++) {
    blocks.push(decodeBlock((await chain.getBlockBytes(h))!, nativeHashes));
  }
  return blocks;
}

/** A chain where alice joins the producers at block 3, then blocks signed by dev and alice in turn. */
async function twoProducerChain(): Promise<Chain> {
  const chain = await tempChain();
  await fundAndActivate(chain, alice, 10n * COIN);
  await chain.signAndSubmit({
    optype: 201,
    signer: alice.address,
    privateKey: alice.privateKey,
    body: { join: true },
  });
  await chain.produceBlock(devWallet.privateKey);
  for (let i = 0; i < 4; i++) {
    await payFromDev(chain, alice.address, 1n);
    await chain.produceBlock((i % 2 === 0 ? alice : devWallet).privateKey);
  }
  return chain;
}

/** `block` with header fields changed, signed again with `key`. */
function forge(block: Block, change: (header: BlockHeader) => void, key: Uint8Array): Block {
  const header = { ...block.header };
  change(header);
  const headerBytes = encodeBlockHeader(header);
  const signature = nativeSecp256k1.sign(
    blockSigningHash(GENESIS_HASH, headerBytes, nativeHashes),
    key,
  );
  return decodeBlock(encodeBlock(headerBytes, signature, block.operations), nativeHashes);
}

/** A header change that sets one field (forge's `change`). */
function setting<K extends keyof BlockHeader>(key: K, value: BlockHeader[K]) {
  return (header: BlockHeader) => {
    header[key] = value;
  };
}

function checkAll(blocks: readonly Block[]): HeaderChain {
  const headers = new HeaderChain(blocks[0]!, context);
  for (const block of blocks.slice(1)) headers.append(block);
  return headers;
}

describe('header chain', () => {
  it('block 0 carries the genesis producer set; a block that changes the set carries the new one', async () => {
    const chain = await twoProducerChain();
    const blocks = await blocksOf(chain);
    const devAccount = blocks[0]!.header.producer;
    expect(blocks[0]!.header.producers.map((p) => p.account)).toEqual([devAccount]);
    const carrying = blocks.filter((b) => b.header.height > 0 && b.header.producers.length > 0);
    expect(carrying.map((b) => b.header.height)).toEqual([2]);
    const aliceAccount = chain.producers().find((n) => n !== devAccount)!;
    expect(carrying[0]!.header.producers).toEqual([
      { account: devAccount, publicKey: blocks[0]!.header.producers[0]!.publicKey },
      { account: aliceAccount, publicKey: alice.publicKey },
    ]);
  });

  it("is the dev block 0 of docs/wire-format.md's example", async () => {
    const doc = readFileSync(
      join(import.meta.dirname, '../../../../../docs/wire-format.md'),
      'utf8',
    );
    const value = (label: string) => new RegExp(`^${label}\\s+(\\S+)$`, 'm').exec(doc)?.[1];
    const [block0] = await blocksOf(await tempChain());
    expect(bytesToHex(block0!.headerBytes)).toBe(value('dev block 0 header'));
    expect(bytesToHex(block0!.hash)).toBe(value('dev block 0 hash'));
    expect(block0!.signature.every((b) => b === 0)).toBe(true);
  });

  it('checks a real chain from block 0 to the head without the state', async () => {
    const chain = await twoProducerChain();
    const blocks = await blocksOf(chain);
    const tip = checkAll(blocks).tip;
    expect(tip.height).toBe(chain.blockCount() - 1);
    expect(tip.hash).toEqual(blocks[blocks.length - 1]!.hash);
    expect(tip.stateRoot).toEqual(chain.stateRoot());
    expect(tip.producers.map((p) => p.account)).toEqual([...chain.producers()]);
    // Blocks by dev alone weigh 2 each (in turn); with two producers taking turns, so do theirs.
    expect(tip.weight).toBe(2 * tip.height);
  });

  it('refuses a header the import would refuse, naming the block and the rule', async () => {
    const chain = await twoProducerChain();
    const blocks = await blocksOf(chain);
    const last = blocks.length - 1;
    const prefix = (n: number) => checkAll(blocks.slice(0, n));
    const parent = blocks[last - 1]!;
    const block = blocks[last]!;
    const byOther = block.header.producer === parent.header.producer ? undefined : parent;
    expect(byOther).toBeDefined();
    const parentKey = (parent.header.producer === blocks[0]!.header.producer ? devWallet : alice)
      .privateKey;
    const cases: Array<[Block, RegExp]> = [
      [forge(block, setting('prevHash', new Uint8Array(32)), parentKey), /WRONG_PARENT|build/],
      [{ ...block, signature: new Uint8Array(64).fill(1) }, /signature/],
      [
        // Signed by the producer of the block before it: two producers, a window of one block.
        forge(block, setting('producer', parent.header.producer), parentKey),
        /signed one of the 1 blocks before/,
      ],
      [forge(block, setting('timestamp', parent.header.timestamp - 1), parentKey), /before/],
    ];
    for (const [forged, message] of cases) {
      expect(() => prefix(last).append(forged)).toThrow(message);
    }
    // Before alice joined (block 2 carries the set), a block signed by her is not a producer's.
    const early = blocks[2]!;
    const aliceAccount = chain.producers().find((n) => n !== blocks[0]!.header.producer)!;
    expect(() =>
      prefix(2).append(forge(early, setting('producer', aliceAccount), alice.privateKey)),
    ).toThrow(/is not a producer/);
    expect(() => prefix(2).append(blocks[3]!)).toThrow(/does not follow block 1/);
  });

  it('the import refuses a block whose carried set is not the one it leaves', async () => {
    const source = await twoProducerChain();
    const blocks = await blocksOf(source, 1);
    const target = await tempChain();
    await target.importBlock((await source.getBlockBytes(1))!);
    const joining = blocks[1]!;
    const refusals = [
      forge(joining, setting('producers', []), devWallet.privateKey),
      forge(
        joining,
        (h) => {
          h.producers = h.producers.slice(0, 1);
        },
        devWallet.privateKey,
      ),
    ];
    for (const forged of refusals) {
      await expect(target.importBlock(forged.bytes)).rejects.toThrow(/producer set/);
    }
    await target.importBlock(joining.bytes);
    // A block that leaves the set as it is carries none.
    const plain = blocks[2]!;
    const carrying = forge(plain, setting('producers', joining.header.producers), alice.privateKey);
    await expect(target.importBlock(carrying.bytes)).rejects.toThrow(/producer set/);
    await target.importBlock(plain.bytes);
    expect(target.stateRoot()).toEqual((await blocksOf(source, 3))[0]!.header.stateRoot);
  });
});
