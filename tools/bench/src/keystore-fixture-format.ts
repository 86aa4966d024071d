/** What keystore-fixture.ts's key files are: shared by it and its worker. */
export const FIXTURE_PASSPHRASE = 'p';
/** The dev network's light scrypt (apps/node DEV_SCRYPT). */
export const FIXTURE_SCRYPT = { N: 2 ** 12, r: 8, p: 1 };
export const FIXTURE_PREFIX = 'CH';
/** 2024-01-01T00:00:00Z in nanoseconds: the first file's creation time. */
export const FIXTURE_BASE_TIME_NS = 1_704_067_200_000_000_000n;
