/**
 * Debian's headless Chromium driven by playwright-core, for the explorer page's tests. `.ci/run`
 * installs the browser; without one the tests say so and skip.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasBrowser = existsSync(CHROMIUM);

/** Says loudly that the browser tests of `file` are skipped, when there is no browser. */
export function warnIfNoBrowser(file: string): void {
  if (hasBrowser) return;
  console.warn(
    `\n!!! SKIPPING ${file}: no Chromium at ${CHROMIUM}.\n` +
      '!!! Install it (apt-get install -y chromium) or set CHROMIUM_PATH to run it.\n',
  );
}

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Uncaught exceptions and console errors (a CSP violation is one): a page must have none. */
  errors: string[];
  close(): Promise<void>;
}

/** A fresh browser profile with one page whose errors are collected. */
export async function openBrowser(): Promise<Browser> {
  // launchPersistentContext is how Playwright takes --user-data-dir.
  const userDataDir = await mkdtemp(join(tmpdir(), 'chain-explorer-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  return {
    context,
    page,
    errors,
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
