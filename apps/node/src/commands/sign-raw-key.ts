/**
 * Where `chain-node sign-raw` gets a signing key: a v3 key file and its passphrase, or an encoded
 * private key from stdin or the environment. Never from a command-line argument: argv is visible to
 * every user of the machine (ps) and stays in shell histories.
 */
import { readFile } from 'node:fs/promises';
import process from 'node:process';
import { ChainError, decodePrivateKey } from '@chain/crypto';
import { decryptKeyFile, parseKeyFile } from '@chain/keystore';
import { CallUsageError } from './call-params';

export const SIGN_PASSPHRASE_ENV = 'CHAIN_SIGN_PASSPHRASE';
export const SIGN_PRIVATE_KEY_ENV = 'CHAIN_SIGN_PRIVATE_KEY';
export const MINE_SIGN_PASSPHRASE_ENV = 'CHAIN_SIGN_MINE_PASSPHRASE';

/** The key file's passphrase is wrong (exit code 1: the command was right, the secret was not). */
export class WrongPassphraseError extends Error {}

interface KeySource {
  /** Flag names, for messages. */
  flags: { keyFile: string; passphraseFile: string };
  keyFile?: string;
  passphraseFile?: string;
  /** Environment variable of the key file's passphrase. */
  passphraseEnv: string;
  /** Read an encoded private key from stdin (only the signer's key may come from there). */
  stdin?: boolean;
  /** Environment variable of an encoded private key. */
  privateKeyEnv?: string;
}

/** The private key of one source; a usage error when there is none or more than one. */
export async function loadKey(source: KeySource, env: NodeJS.ProcessEnv): Promise<Uint8Array> {
  const fromEnv = source.privateKeyEnv === undefined ? undefined : env[source.privateKeyEnv];
  const given = [source.keyFile !== undefined, source.stdin === true, fromEnv !== undefined];
  if (given.filter(Boolean).length !== 1) {
    const choices = [`--${source.flags.keyFile} <file>`];
    if (source.stdin !== undefined) choices.push('--private-key-stdin');
    if (source.privateKeyEnv !== undefined) choices.push(source.privateKeyEnv);
    throw new CallUsageError(`give exactly one signing key: ${choices.join(', or ')}`);
  }
  if (source.keyFile !== undefined) return fromKeyFile(source, source.keyFile, env);
  const text = source.stdin ? await readStdin() : fromEnv!;
  const what = source.stdin ? 'the private key on stdin' : source.privateKeyEnv!;
  try {
    return decodePrivateKey(text.trim(), what);
  } catch (error) {
    // decodePrivateKey's messages never contain the key.
    if (error instanceof ChainError) throw new CallUsageError(error.message);
    throw error;
  }
}

async function fromKeyFile(
  source: KeySource,
  file: string,
  env: NodeJS.ProcessEnv,
): Promise<Uint8Array> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? 'not JSON';
    throw new CallUsageError(`cannot read --${source.flags.keyFile} ${file}: ${why}`);
  }
  let parsed: ReturnType<typeof parseKeyFile>;
  try {
    parsed = parseKeyFile(json);
  } catch (error) {
    throw new CallUsageError(`--${source.flags.keyFile} ${file}: ${(error as Error).message}`);
  }
  const passphrase = await passphraseFor(source, file, env);
  const key = await decryptKeyFile(parsed, passphrase);
  if (key === null) throw new WrongPassphraseError(`wrong passphrase for ${file}`);
  return key;
}

async function passphraseFor(
  source: KeySource,
  file: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  if (source.passphraseFile !== undefined) {
    try {
      return (await readFile(source.passphraseFile, 'utf8')).split(/\r?\n/)[0] ?? '';
    } catch (error) {
      throw new CallUsageError(
        `cannot read --${source.flags.passphraseFile} ${source.passphraseFile}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
  }
  const fromEnv = env[source.passphraseEnv];
  if (fromEnv !== undefined) return fromEnv;
  if (process.stdin.isTTY && process.stderr.isTTY) return promptHidden(`Passphrase for ${file}: `);
  throw new CallUsageError(
    `--${source.flags.keyFile} needs its passphrase: --${source.flags.passphraseFile} <file>, ${source.passphraseEnv}, or a terminal to type it in`,
  );
}

/** Reads a line from the terminal without echoing it. */
function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003') return done(new CallUsageError('interrupted'));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    stdin.on('data', onData);
  });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
