import {
  addressFromPublicKey,
  bytesToHex,
  decodeAddress,
  ErrorCode,
  getPublicKey,
  hash160,
  hexToBytes,
  normalizeAddress,
  sha256,
  utf8ToBytes,
} from '@chain/crypto';
import { ByteWriter } from './codec/byte-writer';
import { type LedgerDataReason, LedgerError } from './errors';

/** The founding document of a network: who holds what at block 0 and the network's parameters. */
export interface Genesis {
  network: string;
  /** The 2-character address prefix of this network. */
  prefix: string;
  /** Unix seconds of block 0. */
  timestamp: number;
  /** Minimum fee of a paying operation, in base units (below 2^53 so it is a JSON integer). */
  actPrice: bigint;
  maxBlockOperations: number;
  ver: number;
  ver_a: number;
  accounts: GenesisAccount[];
  /** Addresses of the initial block producers; each must be a genesis account with a public key. */
  producers: string[];
  /** Free-form network parameters for other packages (subsidy, reward split, maturity, ...). */
  params: Record<string, string | number | boolean>;
}

export interface GenesisAccount {
  address: string;
  /** Compressed public key as 66 hex characters; present = the account starts active. */
  publicKey?: string;
  balance: bigint;
}

/** The dev network's prefunded wallet key: public knowledge, like Anvil's test keys. */
export const DEV_PRIVATE_KEY: Uint8Array = sha256(utf8ToBytes('chain-node dev wallet'));

/** 1,000,000,000 coins of 18 decimals. */
export const DEV_BALANCE = 1_000_000_000n * 10n ** 18n;

/** 2025-01-01T00:00:00Z. */
export const DEV_GENESIS_TIMESTAMP = 1_735_689_600;

/**
 * Participation parameters of the dev network (read by @chain/tiers), small so that a test sees
 * rewards mature and participations expire within seconds:
 * - `tiers.subsidy`: base units minted per block produced by a started TOP node (2 coins).
 * - `tiers.rewardSharePercent`: percent of a block's reward (subsidy + fees) for the TOP node's
 *   share wallet (10).
 * - `tiers.rewardParticipantsPercent`: percent for the TOP node's active MIDDLE/BOTTOM
 *   participants, pro rata by stake (30); the TOP node's miner wallet gets the rest (60).
 * - `tiers.maturity`: blocks a reward stays time-locked (`volume_timelock`) (4).
 * - `tiers.lockTime`: blocks a participation lasts unless extended (30).
 * - `tiers.minStakeTop` / `tiers.minStakeMiddle` / `tiers.minStakeBottom`: least stakes in base
 *   units (100, 10 and 1 coins).
 */
const DEV_PARTICIPATION_PARAMS: Genesis['params'] = {
  'tiers.subsidy': '2000000000000000000',
  'tiers.rewardSharePercent': 10,
  'tiers.rewardParticipantsPercent': 30,
  'tiers.maturity': 4,
  'tiers.lockTime': 30,
  'tiers.minStakeTop': '100000000000000000000',
  'tiers.minStakeMiddle': '10000000000000000000',
  'tiers.minStakeBottom': '1000000000000000000',
};

/** The embedded dev network: one prefunded, active account that is also the only producer. */
export function createDevGenesis(overrides: Partial<Genesis> = {}): Genesis {
  const publicKey = getPublicKey(DEV_PRIVATE_KEY);
  const prefix = overrides.prefix ?? 'CH';
  const address = addressFromPublicKey(prefix, publicKey);
  return {
    network: 'dev',
    prefix,
    timestamp: DEV_GENESIS_TIMESTAMP,
    actPrice: 10n ** 14n,
    maxBlockOperations: 10_000,
    ver: 1,
    ver_a: 0,
    accounts: [{ address, publicKey: bytesToHex(publicKey), balance: DEV_BALANCE }],
    producers: [address],
    params: { ...DEV_PARTICIPATION_PARAMS },
    ...overrides,
  };
}

function invalid(reason: LedgerDataReason, message: string, param?: string): LedgerError {
  return new LedgerError(ErrorCode.INVALID_DATA, reason, message, param ? { param } : {});
}

function asRecord(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw invalid('BAD_GENESIS', `genesis ${what} must be an object`, what);
  }
  return v as Record<string, unknown>;
}

function asInteger(v: unknown, what: string, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) {
    throw invalid('BAD_GENESIS', `genesis ${what} must be an integer between 0 and ${max}`, what);
  }
  return v;
}

function asBigint(v: unknown, what: string): bigint {
  if (typeof v === 'bigint' && v >= 0n) return v;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && /^(0|[1-9][0-9]*)$/.test(v)) return BigInt(v);
  throw invalid(
    'BAD_GENESIS',
    `genesis ${what} must be a non-negative integer (decimal string in JSON)`,
    what,
  );
}

function asString(v: unknown, what: string): string {
  if (typeof v !== 'string' || v.length === 0) {
    throw invalid('BAD_GENESIS', `genesis ${what} must be a non-empty string`, what);
  }
  return v;
}

/**
 * Validates a genesis given as JSON text or as a parsed object (bigints may be decimal strings),
 * and returns it normalised (lowercase hex, bigints). Every rule break is INVALID_DATA naming the field.
 */
export function parseGenesis(json: string | unknown): Genesis {
  let raw: unknown = json;
  if (typeof json === 'string') {
    try {
      raw = JSON.parse(json);
    } catch {
      throw invalid('BAD_GENESIS', 'genesis is not valid JSON');
    }
  }
  const g = asRecord(raw, 'document');
  const network = asString(g.network, 'network');
  const prefix = asString(g.prefix, 'prefix');
  if (!/^[A-Za-z0-9]{2}$/.test(prefix)) {
    throw invalid('BAD_GENESIS', 'genesis prefix must be 2 letters or digits', 'prefix');
  }
  const timestamp = asInteger(g.timestamp, 'timestamp', 0xffffffff);
  const actPrice = asBigint(g.actPrice, 'actPrice');
  if (actPrice > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw invalid('BAD_GENESIS', 'genesis actPrice must be below 2^53', 'actPrice');
  }
  const maxBlockOperations = asInteger(g.maxBlockOperations, 'maxBlockOperations', 1_000_000);
  if (maxBlockOperations < 1) {
    throw invalid('BAD_GENESIS', 'genesis maxBlockOperations must be at least 1');
  }
  const ver = asInteger(g.ver, 'ver', 0xffff);
  const ver_a = asInteger(g.ver_a, 'ver_a', 0xffff);
  if (!Array.isArray(g.accounts)) {
    throw invalid('BAD_GENESIS', 'genesis accounts must be an array', 'accounts');
  }
  const seen = new Set<string>();
  const accounts: GenesisAccount[] = g.accounts.map((entry, i) => {
    const a = asRecord(entry, `accounts[${i}]`);
    const address = asString(a.address, `accounts[${i}].address`);
    const normalised = normalizeAddress(address, prefix, `accounts[${i}].address`);
    const { hash160: h } = decodeAddress(normalised, prefix);
    if (seen.has(normalised)) {
      throw invalid('BAD_GENESIS', `genesis account ${normalised} appears twice`, 'accounts');
    }
    seen.add(normalised);
    const account: GenesisAccount = {
      address: normalised,
      balance: asBigint(a.balance, `accounts[${i}].balance`),
    };
    if (a.publicKey !== undefined) {
      const key = hexToBytes(
        asString(a.publicKey, `accounts[${i}].publicKey`),
        `accounts[${i}].publicKey`,
      );
      if (key.length !== 33 || bytesToHex(hash160(key)) !== bytesToHex(h)) {
        throw invalid(
          'BAD_GENESIS',
          `genesis accounts[${i}].publicKey is not the compressed key of ${normalised}`,
          'accounts',
        );
      }
      account.publicKey = bytesToHex(key);
    }
    return account;
  });
  if (!Array.isArray(g.producers) || g.producers.length === 0) {
    throw invalid('BAD_GENESIS', 'genesis producers must be a non-empty array', 'producers');
  }
  const producers = g.producers.map((p, i) => {
    const address = asString(p, `producers[${i}]`);
    const normalised = normalizeAddress(address, prefix, `producers[${i}]`);
    const account = accounts.find((a) => a.address === normalised);
    if (!account?.publicKey) {
      throw invalid(
        'BAD_GENESIS',
        `genesis producer ${normalised} must be a genesis account with a publicKey`,
        'producers',
      );
    }
    return normalised;
  });
  if (new Set(producers).size !== producers.length) {
    throw invalid('BAD_GENESIS', 'genesis producers must not repeat', 'producers');
  }
  const params: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(asRecord(g.params ?? {}, 'params'))) {
    if (
      typeof value === 'string' ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value))
    ) {
      params[key] = value;
    } else {
      throw invalid('BAD_GENESIS', `genesis params.${key} must be a string, number or boolean`);
    }
  }
  return {
    network,
    prefix,
    timestamp,
    actPrice,
    maxBlockOperations,
    ver,
    ver_a,
    accounts,
    producers,
    params,
  };
}

/** JSON text of a genesis, bigints as decimal strings; `parseGenesis` reads it back. */
export function serializeGenesis(g: Genesis): string {
  return JSON.stringify(
    {
      network: g.network,
      prefix: g.prefix,
      timestamp: g.timestamp,
      actPrice: g.actPrice.toString(),
      maxBlockOperations: g.maxBlockOperations,
      ver: g.ver,
      ver_a: g.ver_a,
      accounts: g.accounts.map((a) => ({
        address: a.address,
        ...(a.publicKey === undefined ? {} : { publicKey: a.publicKey }),
        balance: a.balance.toString(),
      })),
      producers: g.producers,
      params: g.params,
    },
    null,
    2,
  );
}

/**
 * Canonical binary form hashed into the genesis hash: every field in a fixed order, addresses as
 * their 20-byte hashes, params sorted by key with a type tag (0 string, 1 number, 2 boolean).
 */
export function encodeGenesis(g: Genesis): Uint8Array {
  const w = new ByteWriter(1024);
  w.string16('chain-genesis/1');
  w.string16(g.network).string16(g.prefix).u32(g.timestamp).amount(g.actPrice);
  w.u32(g.maxBlockOperations).u16(g.ver).u16(g.ver_a);
  w.u32(g.accounts.length);
  for (const a of g.accounts) {
    w.bytes(decodeAddress(a.address, g.prefix).hash160);
    if (a.publicKey === undefined) w.u8(0);
    else w.u8(1).bytes(hexToBytes(a.publicKey));
    w.amount(a.balance);
  }
  w.u32(g.producers.length);
  for (const p of g.producers) w.bytes(decodeAddress(p, g.prefix).hash160);
  const keys = Object.keys(g.params).sort();
  w.u32(keys.length);
  for (const key of keys) {
    const value = g.params[key]!;
    w.string16(key);
    if (typeof value === 'string') w.u8(0).string16(value);
    else if (typeof value === 'number') w.u8(1).string16(String(value));
    else w.u8(2).u8(value ? 1 : 0);
  }
  return w.finish();
}

/** sha256 of the canonical encoding: identifies the network, and is bound into every signature. */
export function genesisHash(g: Genesis): Uint8Array {
  return sha256(encodeGenesis(g));
}
