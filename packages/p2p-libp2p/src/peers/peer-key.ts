import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';

export const PEER_KEY_FILE = 'peer-key';

/**
 * The node's libp2p identity: an Ed25519 key kept in `<dir>/peer-key` (protobuf, mode 0600), made on
 * first start, so the peer id stays the same across restarts.
 */
export async function loadOrCreatePeerKey(dir: string): Promise<PrivateKey> {
  const path = join(dir, PEER_KEY_FILE);
  try {
    return privateKeyFromProtobuf(await readFile(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = await generateKeyPair('Ed25519');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, privateKeyToProtobuf(key), { mode: 0o600 });
  await rename(temporary, path);
  return key;
}
