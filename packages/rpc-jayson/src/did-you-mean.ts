/** Names longer than this are not worth a suggestion (and would make the distance costly). */
const MAX_SUGGESTED_LENGTH = 64;
const MAX_DISTANCE = 2;

/** Levenshtein distance, giving up (returning limit + 1) once it must exceed `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = new Array<number>(b.length + 1);
  let current = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    [previous, current] = [current, previous];
  }
  return previous[b.length]!;
}

/**
 * The candidate a mistyped name most likely meant: the same name in another case, else the closest
 * name within edit distance 2 (case-insensitive). Undefined when none is close.
 */
export function didYouMean(name: string, candidates: readonly string[]): string | undefined {
  if (name.length === 0 || name.length > MAX_SUGGESTED_LENGTH) return undefined;
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = MAX_DISTANCE + 1;
  for (const candidate of candidates) {
    const candidateLower = candidate.toLowerCase();
    if (candidateLower === lower) return candidate;
    const distance = editDistance(lower, candidateLower, MAX_DISTANCE);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** `; did you mean 'x'?` or nothing. */
export function didYouMeanHint(name: string, candidates: readonly string[]): string {
  const suggestion = didYouMean(name, candidates);
  return suggestion === undefined ? '' : `; did you mean '${suggestion}'?`;
}
