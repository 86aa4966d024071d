import { ADDRESS_PREFIX_LENGTH } from '@chain/crypto';

/** The prefix as it is, the hex part in lowercase: how addresses are compared here. */
export function normalizeAddress(address: string): string {
  if (typeof address !== 'string') return '';
  return (
    address.slice(0, ADDRESS_PREFIX_LENGTH) + address.slice(ADDRESS_PREFIX_LENGTH).toLowerCase()
  );
}
