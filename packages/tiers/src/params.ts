import { ErrorCode } from '@chain/crypto';
import { type Genesis, LedgerError } from '@chain/ledger';

/**
 * The network parameters of participation, read from the genesis `params` (keys below). Every node
 * of a network reads the same genesis, so every node applies the same numbers.
 */
export interface TiersParams {
  /** Base units minted for each block produced by a started TOP node's mine wallet. */
  subsidy: bigint;
  /** Percent of a block's reward (subsidy + fees) for the TOP node's share wallet. */
  rewardSharePercent: number;
  /**
   * Percent of a block's reward for the TOP node's active MIDDLE and BOTTOM participants, pro rata
   * by stake. The miner wallet gets the rest (and this part too when there is no participant).
   */
  rewardParticipantsPercent: number;
  /** Blocks a reward stays time-locked: a reward of block h is spendable from block h + maturity. */
  maturity: number;
  /** Blocks a participation lasts before it ends, unless extended (extension, or child nodes). */
  lockTime: number;
  /** Least stake of a TOP, MIDDLE and BOTTOM node, in base units. */
  minStakeTop: bigint;
  minStakeMiddle: bigint;
  minStakeBottom: bigint;
}

/** The genesis `params` keys of each parameter. */
export const TIERS_PARAM_KEYS = {
  subsidy: 'tiers.subsidy',
  rewardSharePercent: 'tiers.rewardSharePercent',
  rewardParticipantsPercent: 'tiers.rewardParticipantsPercent',
  maturity: 'tiers.maturity',
  lockTime: 'tiers.lockTime',
  minStakeTop: 'tiers.minStakeTop',
  minStakeMiddle: 'tiers.minStakeMiddle',
  minStakeBottom: 'tiers.minStakeBottom',
} as const satisfies Record<keyof TiersParams, string>;

const COIN = 10n ** 18n;

/** What a genesis that does not name a parameter gets (a production-like network). */
export const DEFAULT_TIERS_PARAMS: Readonly<TiersParams> = {
  subsidy: 0n,
  rewardSharePercent: 10,
  rewardParticipantsPercent: 30,
  maturity: 100,
  lockTime: 100_000,
  minStakeTop: 10_000n * COIN,
  minStakeMiddle: 1_000n * COIN,
  minStakeBottom: 100n * COIN,
};

function badParam(key: string, rule: string): LedgerError {
  return new LedgerError(
    ErrorCode.INVALID_DATA,
    'BAD_GENESIS',
    `genesis params.${key} must be ${rule}`,
    { param: key },
  );
}

function integerParam(
  params: Genesis['params'],
  key: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = params[key];
  if (raw === undefined) return fallback;
  const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw badParam(key, `an integer from ${min} to ${max}`);
  }
  return value;
}

function amountParam(params: Genesis['params'], key: string, fallback: bigint): bigint {
  const raw = params[key];
  if (raw === undefined) return fallback;
  if (typeof raw === 'string' && /^(0|[1-9]\d*)$/.test(raw) && raw.length <= 78) return BigInt(raw);
  if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0) return BigInt(raw);
  throw badParam(key, 'a non-negative whole number of base units (a decimal string)');
}

const cache = new WeakMap<Genesis, TiersParams>();

/** The participation parameters of a genesis (validated once per genesis object). */
export function tiersParams(genesis: Genesis): TiersParams {
  const cached = cache.get(genesis);
  if (cached !== undefined) return cached;
  const p = genesis.params;
  const d = DEFAULT_TIERS_PARAMS;
  const k = TIERS_PARAM_KEYS;
  const read: TiersParams = {
    subsidy: amountParam(p, k.subsidy, d.subsidy),
    rewardSharePercent: integerParam(p, k.rewardSharePercent, d.rewardSharePercent, 0, 100),
    rewardParticipantsPercent: integerParam(
      p,
      k.rewardParticipantsPercent,
      d.rewardParticipantsPercent,
      0,
      100,
    ),
    maturity: integerParam(p, k.maturity, d.maturity, 0, 1_000_000),
    lockTime: integerParam(p, k.lockTime, d.lockTime, 1, 100_000_000),
    minStakeTop: amountParam(p, k.minStakeTop, d.minStakeTop),
    minStakeMiddle: amountParam(p, k.minStakeMiddle, d.minStakeMiddle),
    minStakeBottom: amountParam(p, k.minStakeBottom, d.minStakeBottom),
  };
  if (read.rewardSharePercent + read.rewardParticipantsPercent > 100) {
    throw badParam(
      k.rewardParticipantsPercent,
      `at most ${100 - read.rewardSharePercent} (share and participants together at most 100)`,
    );
  }
  cache.set(genesis, read);
  return read;
}
