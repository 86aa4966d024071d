import { createHash } from 'node:crypto';
import { addressFromPublicKey, getPublicKey, sha256, utf8ToBytes } from '@chain/crypto';
import { describe, expect, it } from 'vitest';
import {
  createDevGenesis,
  DEV_PRIVATE_KEY,
  genesisHash,
  parseGenesis,
  serializeGenesis,
} from './genesis';

describe('genesis', () => {
  it('derives the dev key as sha256("chain-node dev wallet")', () => {
    const expected = createHash('sha256').update('chain-node dev wallet').digest();
    expect(Buffer.from(DEV_PRIVATE_KEY).equals(expected)).toBe(true);
  });

  it('creates the dev network: one funded, active producer', () => {
    const g = createDevGenesis();
    const address = addressFromPublicKey('CH', getPublicKey(DEV_PRIVATE_KEY));
    expect(g).toMatchObject({ network: 'dev', prefix: 'CH', actPrice: 10n ** 14n });
    expect(g.accounts).toEqual([
      {
        address,
        publicKey: Buffer.from(getPublicKey(DEV_PRIVATE_KEY)).toString('hex'),
        balance: 10n ** 27n,
      },
    ]);
    expect(g.producers).toEqual([address]);
    expect(g.actPrice < 2n ** 53n).toBe(true);
  });

  it('round-trips through JSON with bigints as decimal strings', () => {
    const g = createDevGenesis({ params: { subsidy: '5', maturity: 10, split: true } });
    const json = serializeGenesis(g);
    expect(JSON.parse(json).accounts[0].balance).toBe('1000000000000000000000000000');
    expect(parseGenesis(json)).toEqual(g);
    expect(genesisHash(parseGenesis(json))).toEqual(genesisHash(g));
  });

  it('hashes content: any change gives another hash, equal content the same', () => {
    const base = genesisHash(createDevGenesis());
    expect(genesisHash(createDevGenesis())).toEqual(base);
    expect(genesisHash(createDevGenesis({ network: 'other' }))).not.toEqual(base);
    expect(genesisHash(createDevGenesis({ params: { x: 1 } }))).not.toEqual(base);
    expect(genesisHash(createDevGenesis({ actPrice: 1n }))).not.toEqual(base);
  });

  it('refuses malformed documents naming the field', () => {
    const g = JSON.parse(serializeGenesis(createDevGenesis()));
    const bad = (patch: object) => () => parseGenesis({ ...g, ...patch });
    expect(() => parseGenesis('{')).toThrow(expect.objectContaining({ code: 1016 }));
    expect(bad({ prefix: 'C' })).toThrow(expect.objectContaining({ param: 'prefix' }));
    expect(bad({ actPrice: '-1' })).toThrow(expect.objectContaining({ param: 'actPrice' }));
    expect(bad({ actPrice: (2n ** 53n).toString() })).toThrow(/2\^53/);
    expect(bad({ producers: [] })).toThrow(expect.objectContaining({ param: 'producers' }));
    expect(bad({ accounts: [g.accounts[0], g.accounts[0]] })).toThrow(/twice/);
    const stranger = addressFromPublicKey('CH', getPublicKey(sha256(utf8ToBytes('x'))));
    expect(bad({ producers: [stranger] })).toThrow(/producer/);
    expect(bad({ accounts: [{ ...g.accounts[0], publicKey: '02'.padEnd(66, '1') }] })).toThrow(
      /publicKey/,
    );
  });
});
