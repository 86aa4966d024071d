import {
  addressFromPublicKey,
  bytesToHex,
  encodePublicKey,
  getPublicKey,
  sha256,
  utf8ToBytes,
} from '@chain/crypto';
import { genesisHash, parseGenesis, serializeGenesis } from '@chain/ledger';
import { describe, expect, it } from 'vitest';
import { buildGenesis, InitUsageError, parseProducerKey } from './init';

const keys = ['one', 'two'].map((label) => getPublicKey(sha256(utf8ToBytes(`init test ${label}`))));
const base = { network: 'testnet', prefix: 'CH', alloc: [], param: [] };

describe('chain-node init', () => {
  it('makes producers from public keys given compressed or as a signMessage enc', () => {
    expect(parseProducerKey(bytesToHex(keys[0]!))).toEqual(keys[0]);
    expect(parseProducerKey(encodePublicKey(keys[1]!))).toEqual(keys[1]);
    expect(() => parseProducerKey('02abcd')).toThrow(InitUsageError);
  });

  it('writes a genesis naming the producers in order, merging their allocations', () => {
    const [p1, p2] = keys.map((k) => addressFromPublicKey('CH', k));
    const funded = addressFromPublicKey('CH', getPublicKey(sha256(utf8ToBytes('funded'))));
    const genesis = buildGenesis({
      ...base,
      producer: keys.map((k) => bytesToHex(k)),
      alloc: [`${p2}=10`, `${funded}=1.5`, `${p2}=5`],
      param: ['blockReward=2', 'open=true', 'label=x'],
      timestamp: 1_750_000_000,
    });
    expect(genesis.producers).toEqual([p1, p2]);
    expect(genesis.accounts).toEqual([
      { address: p1, publicKey: bytesToHex(keys[0]!), balance: 0n },
      { address: p2, publicKey: bytesToHex(keys[1]!), balance: 15n * 10n ** 18n },
      { address: funded, balance: 15n * 10n ** 17n },
    ]);
    expect(genesis.params).toEqual({ blockReward: 2, open: true, label: 'x' });
    expect(genesis).toMatchObject({ network: 'testnet', prefix: 'CH', timestamp: 1_750_000_000 });
    // What it writes reads back to the same network.
    const again = parseGenesis(serializeGenesis(genesis));
    expect(genesisHash(again)).toEqual(genesisHash(genesis));
  });

  it('refuses the dev network name, a network without producers and bad allocations', () => {
    const producer = [bytesToHex(keys[0]!)];
    expect(() => buildGenesis({ ...base, network: 'dev', producer })).toThrow(InitUsageError);
    expect(() => buildGenesis({ ...base, producer: [] })).toThrow(InitUsageError);
    expect(() => buildGenesis({ ...base, producer, alloc: ['nonsense'] })).toThrow(InitUsageError);
    expect(() => buildGenesis({ ...base, producer, alloc: ['CH00=1'] })).toThrow(
      expect.objectContaining({ param: 'alloc' }),
    );
  });
});
