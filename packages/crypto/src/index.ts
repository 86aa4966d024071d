export {
  ADDRESS_HEX_LENGTH,
  ADDRESS_LENGTH,
  ADDRESS_PREFIX_LENGTH,
  addressFromHash160,
  addressFromPublicKey,
  type DecodedAddress,
  decodeAddress,
  isValidAddress,
  isValidNetworkPrefix,
  normalizeAddress,
  tokenAddress,
} from './address';
export { COIN_DECIMALS, formatUnits, MAX_AMOUNT, parseUnits } from './amount';
export {
  bigintToBytesBE,
  bigintToBytesBEPadded,
  bytesToBigintBE,
  bytesToHex,
  concatBytes,
  equalBytes,
  hexToBytes,
  isHex,
  isU16,
  isU32,
  randomBytes,
  readU16le,
  readU32le,
  readU64le,
  U16_MAX,
  U32_MAX,
  u16le,
  u32le,
  u64le,
  utf8ToBytes,
} from './bytes';
export * from './errors';
export { type Hashes, hash160, keccak256, pureHashes, ripemd160, sha256 } from './hashes';
export {
  decodePrivateKey,
  decodePublicKey,
  encodePrivateKey,
  encodePublicKey,
  SECP256K1_CURVE_ID,
} from './key-encoding';
export {
  getPublicKey,
  isValidPrivateKey,
  isValidPublicKey,
  PRIVATE_KEY_LENGTH,
  PUBLIC_KEY_LENGTH,
  randomPrivateKey,
} from './keys';
export {
  LT_HASH_BYTES,
  LT_HASH_LANES,
  LtHash,
  type LtHashElement,
  ltHashElement,
} from './lthash';
export { KERNEL_MAX_INPUT, LtHashKernel, ltHashKernel } from './lthash-kernel';
export {
  type DecodedSignedMessage,
  decodeSignedMessage,
  MESSAGE_PREFIX,
  MESSAGE_VERSION,
  messageHash,
  type SignedMessage,
  signMessage,
  unpairedSurrogateIndex,
  verifyMessage,
} from './message';
export {
  isHighS,
  pureSecp256k1,
  RECOVERABLE_SIGNATURE_LENGTH,
  recoverPublicKey,
  recoveryIdOf,
  type Secp256k1Backend,
  SIGNATURE_LENGTH,
  signRecoverable,
} from './secp256k1';
