/**
 * Ether transfers signed in advance for Anvil's eth_sendRawTransaction: built and serialised by
 * ethers (EIP-1559, chain 31337), the ECDSA signature made by libsecp256k1 (ethers' own signer, in
 * JavaScript, signs a few hundred a second on this machine: the run would wait on it).
 */
import { HDNodeWallet, Signature, Transaction } from 'ethers';
import secp256k1 from 'secp256k1';
import { ANVIL_CHAIN_ID, ANVIL_MNEMONIC } from './anvil-process.js';

export interface EthAccount {
  address: string;
  privateKey: Uint8Array;
}

/** Anvil's dev account `index` (funded at start). */
export function anvilAccount(index: number): EthAccount {
  const wallet = HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`);
  return { address: wallet.address, privateKey: Buffer.from(wallet.privateKey.slice(2), 'hex') };
}

/** `count` transfers of 1 wei from `account` to `to`, nonces from `firstNonce`, as raw hex. */
export function signEthTransfers(
  account: EthAccount,
  to: string,
  firstNonce: number,
  count: number,
): string[] {
  const raw: string[] = [];
  for (let i = 0; i < count; i++) {
    const tx = Transaction.from({
      type: 2,
      chainId: ANVIL_CHAIN_ID,
      nonce: firstNonce + i,
      to,
      value: 1n,
      gasLimit: 21_000n,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: 1n,
    });
    const digest = Buffer.from(tx.unsignedHash.slice(2), 'hex');
    const { signature, recid } = secp256k1.ecdsaSign(digest, account.privateKey);
    tx.signature = Signature.from({
      r: `0x${Buffer.from(signature.subarray(0, 32)).toString('hex')}`,
      s: `0x${Buffer.from(signature.subarray(32)).toString('hex')}`,
      yParity: recid === 1 ? 1 : 0,
    });
    raw.push(tx.serialized);
  }
  return raw;
}
