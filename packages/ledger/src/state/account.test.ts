import { describe, expect, it } from 'vitest';
import { cloneAccount, encodeAccount, newAccount, sameAccount } from './account';

const hash = (byte: number) => new Uint8Array(20).fill(byte);

describe('sameAccount', () => {
  it('is true for a copy and false when any encoded field differs', () => {
    const account = newAccount(7, hash(1));
    account.publicKey = new Uint8Array(33).fill(2);
    account.balance = 10n ** 20n;
    account.timelocks = [{ amount: 5n, untilBlock: 9 }];
    const copy = cloneAccount(account);
    copy.publicKey = new Uint8Array(33).fill(2);

    expect(sameAccount(account, copy)).toBe(true);
    const changes: Array<(a: ReturnType<typeof newAccount>) => void> = [
      (a) => {
        a.balance += 1n;
      },
      (a) => {
        a.nOperation = 1;
      },
      (a) => {
        a.volumeLock = 1n;
      },
      (a) => {
        a.updatedActive = 3;
      },
      (a) => {
        a.updatedPassive = 3;
      },
      (a) => {
        a.lastZeroFeeBlock = 3;
      },
      (a) => {
        a.publicKey = null;
      },
      (a) => {
        a.publicKey = new Uint8Array(33).fill(3);
      },
      (a) => {
        a.timelocks = [];
      },
      (a) => {
        a.timelocks = [{ amount: 5n, untilBlock: 10 }];
      },
    ];
    for (const change of changes) {
      const other = cloneAccount(account);
      change(other);
      expect(sameAccount(account, other)).toBe(false);
      // What it tells apart is what the state root hashes.
      expect(encodeAccount(other)).not.toEqual(encodeAccount(account));
    }
    expect(sameAccount(account, { ...cloneAccount(account), hash160: hash(4) })).toBe(false);
  });
});
