import { createHash } from 'node:crypto';
import { type ApplyContext, createRegistry, type StateSpace } from '@chain/ledger';
import { describe, expect, it } from 'vitest';
import { registerTokens } from './register';

describe("the token addresses' reservation", () => {
  it('names, for loading ahead, exactly the entries it reads to refuse coins', () => {
    const registry = createRegistry();
    registerTokens(registry);
    const [reservation] = registry.addressReservations();
    const address = createHash('sha256').update('a recipient').digest().subarray(0, 20);
    const read: Array<[string, string]> = [];
    const ctx = {
      get(space: StateSpace<unknown>, key: string) {
        read.push([space.name, key]);
        return undefined;
      },
    } as unknown as ApplyContext;
    expect(reservation!.reserved(ctx, address)).toBeUndefined();
    const keys = {
      accounts: [],
      hashes: [],
      spaces: [] as Array<[string, string]>,
      coinRecipients: [],
    };
    reservation!.stateKeys!(address, keys);
    expect(read).toHaveLength(1);
    expect(keys.spaces).toEqual(read);
  });
});
