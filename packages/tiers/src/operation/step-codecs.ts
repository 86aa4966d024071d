/**
 * The byte layouts of the ten participation operations (codec.ts holds the field encodings), without
 * state: part of `@chain/tiers/codec`. The operation types (top.ts, middle.ts, bottom.ts, cancel.ts)
 * add their rules to these codecs. docs/wire-format.md describes the bytes.
 */
import type { ByteReader, OperationCodec } from '@chain/ledger/codec';
import { BodyWriter, type HardwareDescription, MAX_NODES_TEXT_BYTES, readBody } from './codec';
import { PARTICIPATION_OPTYPES, type ParticipationStep } from './optypes';

/** Wallet-hash fields of a body, named by the step (their names are also the error `param`). */
type Wallets<Name extends string> = { [K in Name]: Uint8Array };

type StepCodec<B> = OperationCodec<B> & { readonly name: ParticipationStep };

function stepCodec<B>(
  step: ParticipationStep,
  encodeBody: (body: B) => Uint8Array,
  decodeBody: (r: ByteReader) => B,
): StepCodec<B> {
  return { ...PARTICIPATION_OPTYPES[step], name: step, encodeBody, decodeBody };
}

/** What every MIDDLE or BOTTOM join request carries besides the wallets it names. */
export interface JoinRequest {
  code: string;
  stake: bigint;
  miner: Uint8Array;
  extension: boolean;
}

/** Body of a MIDDLE/BOTTOM join request: code, stake, miner, the `named` wallets in order, flag. */
function joinRequestCodec<Name extends string>(
  step: ParticipationStep,
  named: readonly Name[],
): StepCodec<JoinRequest & Wallets<Name>> {
  return stepCodec(
    step,
    (b) => {
      const writer = new BodyWriter()
        .code(b.code)
        .amount(b.stake, 'amount')
        .wallet(b.miner, 'miner');
      for (const name of named) writer.wallet(b[name], name);
      return writer.flag(b.extension).finish();
    },
    (r) => {
      const code = readBody.code(r);
      const stake = r.amount('stake');
      const miner = readBody.wallet(r, 'miner');
      const wallets = readWallets(r, named);
      return { code, stake, miner, ...wallets, extension: readBody.flag(r, 'extension') };
    },
  );
}

/** A confirmer's answer about a waiting participant (nodeStep3_2, nodeStep4_2, nodeStep5_2). */
export interface DecisionBody {
  code: string;
  target: Uint8Array;
  select: boolean;
}

/** Body of a decision: code, the `named` wallets in order (`target` among them), select. */
function decisionCodec<Name extends string>(
  step: ParticipationStep,
  named: readonly Name[],
): StepCodec<{ code: string; select: boolean } & Wallets<Name>> {
  return stepCodec(
    step,
    (b) => {
      const writer = new BodyWriter().code(b.code);
      for (const name of named) writer.wallet(b[name], name);
      return writer.flag(b.select).finish();
    },
    (r) => {
      const code = readBody.code(r);
      const wallets = readWallets(r, named);
      return { code, ...wallets, select: readBody.flag(r, 'select') };
    },
  );
}

function readWallets<Name extends string>(r: ByteReader, named: readonly Name[]): Wallets<Name> {
  const wallets = {} as Wallets<Name>;
  for (const name of named) wallets[name] = readBody.wallet(r, name);
  return wallets;
}

/** nodeStep1 (8): a wallet joins as a TOP node; its node code derives from this operation. */
export interface JoinTopBody {
  stake: bigint;
  /** Hash of the miner wallet (rewards of the TOP node go there). */
  miner: Uint8Array;
  /** Percent kept from a cancelling participant's stake, shared among the others. */
  penalty: number;
  extension: boolean;
}

/** nodeStep1: `stake || miner 20 || penalty u8 || extension u8`. */
export const joinTopCodec = stepCodec<JoinTopBody>(
  'nodeStep1',
  (b) =>
    new BodyWriter()
      .amount(b.stake, 'amount')
      .wallet(b.miner, 'miner')
      .u8(b.penalty, 'penalty')
      .flag(b.extension)
      .finish(),
  (r) => ({
    stake: r.amount('stake'),
    miner: readBody.wallet(r, 'miner'),
    penalty: r.u8('penalty'),
    extension: readBody.flag(r, 'extension'),
  }),
);

/** nodeStep2 (9): the TOP node's H/W check. */
export interface TopHardwareBody {
  code: string;
  hardware: HardwareDescription;
}

/** nodeStep2: `code 8 || CPU || RAM || GPU || DISK`. */
export const topHardwareCodec = stepCodec<TopHardwareBody>(
  'nodeStep2',
  (b) => new BodyWriter().code(b.code).hardware(b.hardware).finish(),
  (r) => ({ code: readBody.code(r), hardware: readBody.hardware(r) }),
);

/** nodeStep3_1 (14): a wallet asks a TOP node to take it as a MIDDLE node. */
export interface JoinMiddleBody extends JoinRequest {
  /** The TOP node's wallet. */
  confirmer: Uint8Array;
}

/** nodeStep3_1: `code 8 || stake || miner 20 || confirmer 20 || extension u8`. */
export const joinMiddleCodec: StepCodec<JoinMiddleBody> = joinRequestCodec('nodeStep3_1', [
  'confirmer',
]);

/** nodeStep3_2 (15): `code 8 || target 20 || select u8`. */
export const approveMiddleCodec: StepCodec<DecisionBody> = decisionCodec('nodeStep3_2', ['target']);

/** nodeStep4_1 (16): a MIDDLE node's H/W check, for its TOP node to approve. */
export interface MiddleHardwareBody {
  code: string;
  confirmer: Uint8Array;
  hardware: HardwareDescription;
}

/** nodeStep4_1: `code 8 || confirmer 20 || CPU || RAM || GPU || DISK`. */
export const middleHardwareCodec = stepCodec<MiddleHardwareBody>(
  'nodeStep4_1',
  (b) =>
    new BodyWriter().code(b.code).wallet(b.confirmer, 'confirmer').hardware(b.hardware).finish(),
  (r) => ({
    code: readBody.code(r),
    confirmer: readBody.wallet(r, 'confirmer'),
    hardware: readBody.hardware(r),
  }),
);

/** nodeStep4_2 (17): `code 8 || target 20 || select u8`. */
export const approveMiddleHardwareCodec: StepCodec<DecisionBody> = decisionCodec('nodeStep4_2', [
  'target',
]);

/** nodeStep5_1 (18): a wallet asks an active MIDDLE node (under a TOP main) to take it as BOTTOM. */
export interface JoinBottomBody extends JoinRequest {
  /** The TOP node's wallet. */
  main: Uint8Array;
  /** The MIDDLE node's wallet. */
  confirmer: Uint8Array;
}

/** nodeStep5_1: `code 8 || stake || miner 20 || main 20 || confirmer 20 || extension u8`. */
export const joinBottomCodec: StepCodec<JoinBottomBody> = joinRequestCodec('nodeStep5_1', [
  'main',
  'confirmer',
]);

/** nodeStep5_2 (19/0): the MIDDLE node approves or rejects a BOTTOM participant. */
export interface BottomDecisionBody extends DecisionBody {
  /** The TOP node's wallet. */
  main: Uint8Array;
}

/** nodeStep5_2: `code 8 || main 20 || target 20 || select u8`. */
export const approveBottomCodec: StepCodec<BottomDecisionBody> = decisionCodec('nodeStep5_2', [
  'main',
  'target',
]);

/** blockchainStart (19/1): the TOP node starts mining with its mine wallet. */
export interface StartMiningBody {
  code: string;
  mine: Uint8Array;
  share: Uint8Array;
  /** Sub-node IPs, `ip1;ip2;...` (may be empty). */
  nodes: string;
  /** The mine wallet's signature of `mineConsentHash(genesis hash, code)`. */
  mineConsent: Uint8Array;
}

/** blockchainStart: `code 8 || mine 20 || share 20 || nodes (u16 length || utf8) || consent 64`. */
export const startMiningCodec = stepCodec<StartMiningBody>(
  'blockchainStart',
  (b) =>
    new BodyWriter()
      .code(b.code)
      .wallet(b.mine, 'mine')
      .wallet(b.share, 'share')
      .text(b.nodes, MAX_NODES_TEXT_BYTES, 'nodes')
      .signature(b.mineConsent, 'mineConsent')
      .finish(),
  (r) => ({
    code: readBody.code(r),
    mine: readBody.wallet(r, 'mine'),
    share: readBody.wallet(r, 'share'),
    nodes: readBody.text(r, MAX_NODES_TEXT_BYTES, 'nodes'),
    mineConsent: readBody.signature(r, 'mine consent'),
  }),
);

/** nodeCancel (19/2): a participant leaves its tree. */
export interface CancelBody {
  code: string;
}

/** nodeCancel: `code 8`. */
export const cancelCodec = stepCodec<CancelBody>(
  'nodeCancel',
  (b) => new BodyWriter().code(b.code).finish(),
  (r) => ({ code: readBody.code(r) }),
);
