import { afterEach, describe, expect, it } from 'vitest';
import { DEV_PRIVATE_KEY } from '../genesis';
import { openTempChain, payFromDev, type TempChain, testWallet } from '../testing/temp-chain';

let temp: TempChain | undefined;

afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

describe('block listeners', () => {
  it("are given the block's bytes as committed (what gossip publishes without reading them back)", async () => {
    temp = await openTempChain();
    const { chain } = temp;
    const seen: Array<{ height: number; bytes: Uint8Array }> = [];
    chain.onBlock((info, _origin, _operations, _optypes, bytes) =>
      seen.push({ height: info.block, bytes }),
    );
    await payFromDev(chain, testWallet('listener bytes').address, 5n);
    await chain.produceBlock(DEV_PRIVATE_KEY);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.bytes).toEqual(await chain.getBlockBytes(seen[0]!.height));
  });
});
