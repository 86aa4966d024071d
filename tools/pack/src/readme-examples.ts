/**
 * The README examples as the pack check runs them. The SDK's examples (```ts blocks that import
 * `@chain/rpc-client`) are written for a dev node: its URL, `CH…` for its dev wallet and `ca0220…`
 * for that wallet's key. `fillPlaceholders` puts the test node's values there, nothing else.
 */
import { readFile } from 'node:fs/promises';

/** Every ```<fence> block of a markdown file, in order. */
export async function fencedBlocks(file: string, fence: 'ts' | 'js' | 'sh'): Promise<string[]> {
  const text = await readFile(file, 'utf8');
  return [...text.matchAll(new RegExp(`^\`\`\`${fence}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map(
    (match) => match[1]!,
  );
}

/** The ```ts blocks of a README that use the SDK. */
export async function sdkExamples(file: string): Promise<string[]> {
  return (await fencedBlocks(file, 'ts')).filter((code) => /from '@chain\/rpc-client'/.test(code));
}

export interface DevNode {
  /** The node's JSON-RPC URL, e.g. http://127.0.0.1:40123/ */
  url: string;
  wallet: string;
  /** The dev wallet's encoded private key (dumpPrivateKey). */
  privateKey: string;
}

const DEFAULT_URL = 'http://127.0.0.1:9713';

/** The example with the dev node's URL, wallet and key in place of the documented ones. */
export function fillPlaceholders(code: string, node: DevNode): string {
  return code
    .replaceAll(`'${DEFAULT_URL}'`, JSON.stringify(node.url))
    .replaceAll("'CH…'", JSON.stringify(node.wallet))
    .replaceAll("'ca0220…'", JSON.stringify(node.privateKey));
}
