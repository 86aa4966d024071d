/** One claimant of a pro-rata split: an account and its weight (its stake). */
export interface Claim {
  account: number;
  weight: bigint;
}

/**
 * Splits `total` base units among `claims` in proportion to their weights, exactly: the parts add up
 * to `total` to the last base unit. Largest-remainder rule (Hamilton): each claim first gets
 * `floor(total * weight / sum)`; the few units left over (fewer than the number of claims) go one
 * each to the claims with the largest remainders `total * weight mod sum`, ties to the lower
 * account number. Deterministic, so every node credits the same amounts. Returns the parts in the
 * order of `claims`; all zero when the weights sum to zero.
 */
export function splitProRata(total: bigint, claims: readonly Claim[]): bigint[] {
  if (total < 0n) throw new RangeError('cannot split a negative amount');
  let sum = 0n;
  for (const claim of claims) {
    if (claim.weight < 0n) throw new RangeError('claim weights must not be negative');
    sum += claim.weight;
  }
  if (sum === 0n) return claims.map(() => 0n);
  const parts = claims.map((claim) => (total * claim.weight) / sum);
  let leftover = total - parts.reduce((a, b) => a + b, 0n);
  if (leftover === 0n) return parts;
  const order = claims
    .map((claim, index) => ({ index, account: claim.account, rest: (total * claim.weight) % sum }))
    .sort((a, b) => (a.rest === b.rest ? a.account - b.account : a.rest > b.rest ? -1 : 1));
  for (const { index } of order) {
    if (leftover === 0n) break;
    parts[index]! += 1n;
    leftover -= 1n;
  }
  return parts;
}
