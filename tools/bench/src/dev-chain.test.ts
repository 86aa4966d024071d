import { decodeAddress } from '@chain/crypto';
import { describe, expect, it } from 'vitest';
import { DEV_PREFIX, randomAddresses } from './dev-chain.js';

describe('dev chain helpers', () => {
  it('gives distinct valid addresses of the dev network', () => {
    const addresses = randomAddresses(500);

    expect(new Set(addresses).size).toBe(500);
    for (const address of addresses)
      expect(decodeAddress(address, DEV_PREFIX).hash160).toHaveLength(20);
  });
});
