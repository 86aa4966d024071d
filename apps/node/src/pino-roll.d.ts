/** pino-roll ships no types: the part of its API the logger uses. */
declare module 'pino-roll' {
  import type { DestinationStream } from 'pino';

  export interface PinoRollOptions {
    file: string;
    size?: string | number;
    frequency?: string | number;
    extension?: string;
    limit?: { count: number; removeOtherLogFiles?: boolean };
    symlink?: boolean;
    mkdir?: boolean;
    sync?: boolean;
  }

  export default function pinoRoll(options: PinoRollOptions): Promise<DestinationStream>;
}
