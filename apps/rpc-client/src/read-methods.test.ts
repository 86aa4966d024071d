import { catalogue, type MethodName, type MethodSpec } from '@chain/spec';
import { describe, expect, it } from 'vitest';
import { isIdempotentRead, isRetriableCall } from './read-methods.js';

const METHODS: MethodSpec[] = Object.values(catalogue);

describe('isIdempotentRead', () => {
  it('never lets a method that takes a secret or key material be retried', () => {
    const keyed = METHODS.filter(
      (spec) =>
        spec.keyMaterial === true || Object.values(spec.params).some((param) => param.isSecret),
    );
    // sendTo, createToken, signMessage, dumpPrivateKey, the participation steps, ...
    expect(keyed.length).toBeGreaterThan(15);
    for (const spec of keyed) expect(isIdempotentRead(spec.name), spec.name).toBe(false);
  });

  it('never retries the methods that change node state without a key', () => {
    const changesState: MethodName[] = [
      'lockWallet',
      'walletRefresh',
      'excuteRaw',
      'addNode',
      'nodeStart',
      'nodeStop',
      'nodeSearch',
      'addBlacklist',
      'clearBlacklist',
    ];
    for (const name of changesState) expect(isIdempotentRead(name), name).toBe(false);
  });

  it('retries every block and stats method and the get/info/find/decode reads', () => {
    const groupReads = METHODS.filter((spec) => spec.group === 'block' || spec.group === 'stats');
    expect(groupReads.map((spec) => spec.name)).toEqual(
      expect.arrayContaining(['getBlockCount', 'getBlockInfo', 'blockSyncing', 'rpcCallStats']),
    );
    const namedReads: MethodName[] = [
      'getWalletInfo',
      'getKeyStoreInfo',
      'getKeyStoreCount',
      'getPendingOperation',
      'getActPrice',
      'getNodePart',
      'getBlacklist',
      'getConnection',
      'infoToken',
      'InfoRaw',
      'findOperation',
      'decodeOpHash',
      'holderToken',
      'nodeStatus',
      'nodeStepMDList',
      'verifyMessage',
    ];
    for (const spec of groupReads) expect(isIdempotentRead(spec.name), spec.name).toBe(true);
    for (const name of namedReads) expect(isIdempotentRead(name), name).toBe(true);
  });

  it("follows the catalogue's readOnly flag, not the method's name", () => {
    for (const spec of METHODS) expect(isIdempotentRead(spec.name), spec.name).toBe(spec.readOnly);
    const base = { group: 'block', summary: '', params: {}, result: { name: 'integer' } } as const;
    const methods: Record<string, MethodSpec> = {
      getCounterAndBump: { ...base, name: 'getCounterAndBump', readOnly: false },
      tally: { ...base, name: 'tally', group: 'wallet', readOnly: true },
    };
    expect(isIdempotentRead('getCounterAndBump', methods)).toBe(false);
    expect(isIdempotentRead('tally', methods)).toBe(true);
  });

  it('refuses names outside the catalogue, including wrong-case ones', () => {
    expect(isIdempotentRead('getblockcount')).toBe(false);
    expect(isIdempotentRead('getSomethingNew')).toBe(false);
    expect(isIdempotentRead('toString')).toBe(false);
  });
});

describe('isRetriableCall', () => {
  it('retries sendTo and sendToken only with a reference, by name or position', () => {
    const named = { sender: 'x', passphrase: 'p', receiver: 'y', amount: '1' };
    expect(isRetriableCall('sendTo', named)).toBe(false);
    expect(isRetriableCall('sendTo', { ...named, reference: 'w-1' })).toBe(true);
    expect(isRetriableCall('sendToken', { ...named, token: 't', reference: 'w-1' })).toBe(true);
    expect(isRetriableCall('sendTo', ['x', 'p', 'y', '1'])).toBe(false);
    expect(isRetriableCall('sendTo', ['x', 'p', 'y', '1', undefined, 'w-1'])).toBe(true);
    // Only the methods the catalogue marks: a `reference` elsewhere means nothing.
    expect(isRetriableCall('privSendTo', { ...named, reference: 'w-1' })).toBe(false);
    expect(isRetriableCall('getBlockCount', undefined)).toBe(true);
  });
});
