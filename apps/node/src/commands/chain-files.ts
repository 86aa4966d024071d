/**
 * `chain-node export`, `import` and `backup`: the chain of a data directory to and from a block file
 * (block-file.ts), and a copy of a node's key store and chain. The work is loaded only when one of
 * them runs (block-export.ts, block-file-import.ts, backup-run.ts), so the other commands do not
 * load the ledger.
 */
import process from 'node:process';
import type { Argv, CommandModule } from 'yargs';
import type { BackupArgs, BackupSummary } from './backup-run';
import type { ExportArgs } from './block-export';
import type { ImportArgs, ImportControl, ImportSummary } from './block-file-import';
import { datadirOptions, reportFailures } from './offline-chain';
import type { SnapshotExportArgs, SnapshotImportArgs } from './snapshot-run';

/** The defaults of these commands, in one place. */
const CHAIN_FILE_DEFAULTS = Object.freeze({
  /** Block 0 is not exported: every node makes it from the genesis file. */
  from: 1,
  force: false,
});

function exportOptions(args: Argv) {
  return datadirOptions(args)
    .positional('file', { type: 'string', demandOption: true, describe: 'block file to write' })
    .option('from', {
      type: 'number',
      default: CHAIN_FILE_DEFAULTS.from,
      describe: 'first block to export',
    })
    .option('to', { type: 'number', describe: 'last block to export (default: the tip)' })
    .option('force', {
      type: 'boolean',
      default: CHAIN_FILE_DEFAULTS.force,
      describe: 'overwrite FILE',
    });
}

export const exportCommand: CommandModule<object, ExportArgs> = {
  command: 'export <file>',
  describe: 'write the blocks of a stopped node to a block file (checksummed, streamable)',
  builder: exportOptions as unknown as CommandModule<object, ExportArgs>['builder'],
  handler: (argv) =>
    reportFailures('export', async () => {
      const { exportBlocks } = await import('./block-export');
      const done = await exportBlocks(argv);
      process.stdout.write(
        `exported blocks ${done.from}-${done.to} (${done.to - done.from + 1} blocks, ${done.bytes} bytes) ` +
          `to ${done.file}; block ${done.to} is ${done.tipHash}\n`,
      );
    }),
};

function importOptions(args: Argv) {
  return datadirOptions(args).positional('file', {
    type: 'string',
    demandOption: true,
    describe: 'block file to import',
  });
}

export const importCommand: CommandModule<object, ImportArgs> = {
  command: 'import <file>',
  describe: 'verify and import a block file into a stopped node (resumes where it stopped)',
  builder: importOptions as unknown as CommandModule<object, ImportArgs>['builder'],
  handler: (argv) =>
    reportFailures('import', async () => {
      const { importBlocks } = await import('./block-file-import');
      const control: ImportControl = { stopped: false };
      const stop = () => {
        control.stopped = true;
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        const done = await importBlocks(argv, control);
        process.stdout.write(
          `imported ${done.imported} blocks (${done.skipped} already in the chain)${importRate(done)}; ` +
            `the chain ends at block ${done.tip}, ${done.tipHash}\n`,
        );
        if (done.interrupted) {
          process.stderr.write(
            'chain-node import: interrupted; run the same command again to resume\n',
          );
          process.exitCode = 130;
        }
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    }),
};

/** ` in 1.02 s, 4902 blocks/s`: the import's own time, without the file check before it. */
function importRate(done: ImportSummary): string {
  if (done.imported === 0 || done.importSeconds <= 0) return '';
  const rate = Math.round(done.imported / done.importSeconds);
  return ` in ${done.importSeconds.toFixed(2)} s, ${rate} blocks/s`;
}

function backupOptions(args: Argv) {
  return datadirOptions(args).option('to', {
    type: 'string',
    demandOption: true,
    describe: 'new or empty directory to write the backup to (a data directory)',
  });
}

export const backupCommand: CommandModule<object, BackupArgs> = {
  command: 'backup',
  describe:
    "copy a node's key store, chain database and withdrawal references to --to (a data directory)",
  builder: backupOptions as unknown as CommandModule<object, BackupArgs>['builder'],
  handler: (argv) =>
    reportFailures('backup', async () => {
      const { backupNode } = await import('./backup-run');
      const done = await backupNode(argv);
      process.stdout.write(
        `key store: ${done.keyFiles} key file(s) copied to ${done.dir}/keystore\n`,
      );
      if (done.chain) {
        process.stdout.write(
          `chain: ${done.chain.entries} entries (${done.chain.bytes} bytes) copied to ${done.dir}/chain; ` +
            `it ends at block ${done.chain.tip}, ${done.chain.tipHash}\n`,
        );
      } else {
        process.stdout.write(
          'chain: not copied: a running node holds the chain database. The key store is what cannot be ' +
            'rebuilt; for the chain, stop the node and run backup again (a few seconds per 100,000 ' +
            'blocks), or let a node started from this backup sync from its peers\n',
        );
      }
      process.stdout.write(`${referencesLine(done.dir, done.references)}\n`);
    }),
};

function referencesLine(dir: string, copy: BackupSummary['references']): string {
  if (copy.copied) {
    return `withdrawal references: ${copy.records} copied to ${dir}/references`;
  }
  if (copy.reason === 'absent') return 'withdrawal references: none (no reference was ever used)';
  return (
    'withdrawal references: not copied: a running node holds them. A node started from this backup ' +
    'would pay a withdrawal retried with its reference again: stop the node and run backup again'
  );
}

function snapshotExportOptions(args: Argv) {
  return datadirOptions(args)
    .positional('file', { type: 'string', demandOption: true, describe: 'snapshot file to write' })
    .option('at', {
      type: 'number',
      describe:
        'height of the state to export (default: the head); as far back as the undo records reach (the last 64 blocks)',
    })
    .option('force', {
      type: 'boolean',
      default: CHAIN_FILE_DEFAULTS.force,
      describe: 'overwrite FILE',
    });
}

function snapshotImportOptions(args: Argv) {
  return datadirOptions(args).positional('file', {
    type: 'string',
    demandOption: true,
    describe: 'snapshot file to import',
  });
}

const snapshotExportCommand: CommandModule<object, SnapshotExportArgs> = {
  command: 'export <file>',
  describe:
    "write the state of a stopped node's head (or of a recent block, --at), with the headers that check it, to a file",
  builder: snapshotExportOptions as unknown as CommandModule<object, SnapshotExportArgs>['builder'],
  handler: (argv) =>
    reportFailures('snapshot export', async () => {
      const { exportSnapshot } = await import('./snapshot-run');
      const done = await exportSnapshot(argv);
      process.stdout.write(
        `exported the state at block ${done.height} (${done.hash}): ${done.records} entries, ${done.bytes} bytes, to ${done.file}\n`,
      );
    }),
};

const snapshotImportCommand: CommandModule<object, SnapshotImportArgs> = {
  command: 'import <file>',
  describe: 'check a snapshot file against the chain, then restore an empty data directory from it',
  builder: snapshotImportOptions as unknown as CommandModule<object, SnapshotImportArgs>['builder'],
  handler: (argv) =>
    reportFailures('snapshot import', async () => {
      const { importSnapshot } = await import('./snapshot-run');
      const done = await importSnapshot(argv);
      process.stdout.write(
        `restored the state at block ${done.height} (${done.hash}): ${done.records} entries from ${done.file}; ` +
          `the node starts there, without the blocks before it\n`,
      );
    }),
};

export const snapshotCommand: CommandModule = {
  command: 'snapshot <command>',
  describe: 'export or import a verified snapshot of the state (join a chain without replaying it)',
  builder: (args) =>
    args.command(snapshotExportCommand).command(snapshotImportCommand).demandCommand(1),
  handler: () => {},
};
