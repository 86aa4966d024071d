/**
 * The lab's load: one worker per wallet, each bound to one node, sending sendTo, sendToken and
 * rawSendTo + excuteRaw in turn. Every operation a node acknowledged (answered with an ophash) is
 * recorded, to be audited once the network has settled (audit.ts).
 */
import type { LabNode } from './lab-node';
import type { LabOperation } from './rpc';

export type LoadKind = 'sendTo' | 'sendToken' | 'excuteRaw' | 'doubleSpend';

export interface Acknowledged {
  ophash: string;
  kind: LoadKind;
  node: string;
  wallet: string;
  nOperation: number;
  at: number;
  scenario: string;
}

export interface LoadWallet {
  address: string;
  account: number;
  node: LabNode;
}

export interface LoadOptions {
  wallets: LoadWallet[];
  passphrase: string;
  /** Token every wallet holds some of (sendToken), if any. */
  token?: string;
  /** Pause of each worker between two operations. */
  pauseMs: number;
}

export class Load {
  readonly acknowledged: Acknowledged[] = [];
  errors = 0;
  scenario = 'setup';
  private running = false;
  private workers: Promise<void>[] = [];

  constructor(private readonly options: LoadOptions) {}

  record(op: LabOperation, kind: LoadKind, node: LabNode, wallet: string): void {
    this.acknowledged.push({
      ophash: op.ophash,
      kind,
      node: node.name,
      wallet,
      nOperation: op.n_operation,
      at: Date.now(),
      scenario: this.scenario,
    });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.workers = this.options.wallets.map((wallet, i) => this.work(wallet, i));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  private async work(wallet: LoadWallet, offset: number): Promise<void> {
    const { wallets, passphrase, token, pauseMs } = this.options;
    let step = offset;
    let lastN: number | undefined;
    while (this.running) {
      const receiver =
        wallets[(wallets.indexOf(wallet) + 1 + (step % (wallets.length - 1))) % wallets.length]!;
      const kind: LoadKind =
        step % 4 === 1 && token
          ? 'sendToken'
          : step % 4 === 3 && lastN !== undefined
            ? 'excuteRaw'
            : 'sendTo';
      step++;
      try {
        const op = await this.send(kind, wallet, receiver, passphrase, token, lastN);
        if (op.valid === false || !op.ophash) throw new Error(`refused: ${op.errors}`);
        this.record(op, kind, wallet.node, wallet.address);
        lastN = op.n_operation;
      } catch {
        // Not acknowledged (node down, link cut, refused): nothing to audit. The next operation
        // lets the node number it again.
        this.errors++;
        lastN = undefined;
        await sleep(1000);
      }
      await sleep(pauseMs);
    }
  }

  private async send(
    kind: LoadKind,
    wallet: LoadWallet,
    receiver: LoadWallet,
    passphrase: string,
    token: string | undefined,
    lastN: number | undefined,
  ): Promise<LabOperation> {
    const node = wallet.node;
    if (kind === 'sendToken') {
      return node.call<LabOperation>('sendToken', {
        sender: wallet.address,
        passphrase,
        receiver: receiver.address,
        amount: '1',
        token,
      });
    }
    if (kind === 'excuteRaw') {
      const raw = await node.call<{ rawoperation: string }>('rawSendTo', {
        senderAccount: wallet.account,
        senderWallet: wallet.address,
        senderNOperation: lastN,
        passphrase,
        receiverAccount: receiver.account,
        amount: '0.001',
      });
      const result = await node.call<LabOperation | LabOperation[]>('excuteRaw', {
        rawoperation: raw.rawoperation,
      });
      return Array.isArray(result) ? result[0]! : result;
    }
    return node.call<LabOperation>('sendTo', {
      sender: wallet.address,
      passphrase,
      receiver: receiver.address,
      amount: '0.01',
    });
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
