export { OpHashError } from './errors';
export {
  buildOpHash,
  DIGEST_LENGTH,
  decodeOpHash,
  OPHASH_HEX_LENGTH,
  OPHASH_LENGTH,
  type OpHashParts,
  operationDigest,
  opHashIdentity,
  opHashIdentityOf,
} from './ophash';
