import { createDevGenesis } from '@chain/ledger';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIERS_PARAMS, TIERS_PARAM_KEYS, tiersParams } from './params';

const COIN = 10n ** 18n;

describe('tiersParams', () => {
  it('reads the dev genesis: small values so maturity and expiry show within seconds', () => {
    expect(tiersParams(createDevGenesis())).toEqual({
      subsidy: 2n * COIN,
      rewardSharePercent: 10,
      rewardParticipantsPercent: 30,
      maturity: 4,
      lockTime: 30,
      minStakeTop: 100n * COIN,
      minStakeMiddle: 10n * COIN,
      minStakeBottom: 1n * COIN,
    });
  });

  it('falls back to the defaults for a genesis that names none', () => {
    expect(tiersParams(createDevGenesis({ params: {} }))).toEqual(DEFAULT_TIERS_PARAMS);
  });

  it.each([
    [TIERS_PARAM_KEYS.subsidy, '-1'],
    [TIERS_PARAM_KEYS.subsidy, 1.5],
    [TIERS_PARAM_KEYS.lockTime, 0],
    [TIERS_PARAM_KEYS.maturity, true],
    [TIERS_PARAM_KEYS.rewardSharePercent, 101],
    [TIERS_PARAM_KEYS.rewardParticipantsPercent, 95],
    [TIERS_PARAM_KEYS.minStakeTop, '01'],
  ])('refuses %s = %j', (key, value) => {
    expect(() => tiersParams(createDevGenesis({ params: { [key]: value } }))).toThrow(
      expect.objectContaining({ code: 1016, reason: 'BAD_GENESIS' }),
    );
  });
});
