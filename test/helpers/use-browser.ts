import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { useTeardown } from './use-teardown.js';

/** The system Chromium (Debian's `chromium` package), or CHROMIUM_PATH. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * A headless Chromium with a fresh profile, closed (and its profile removed)
 * when the test ends. The flags keep it off the network it cannot reach here
 * (no background services, updates or sync); `evil.test` resolves to
 * 127.0.0.1, as a DNS-rebinding attacker's name would.
 */
export async function useBrowser(): Promise<BrowserContext> {
  const browser = await launchBrowser();
  return useTeardown(browser.context, () => browser.close());
}

/** The same, for a whole file (beforeAll): the caller calls close(). */
export async function launchBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`No Chromium at ${CHROMIUM_PATH}: apt-get install -y chromium (or set CHROMIUM_PATH).`);
  const profile = await mkdtemp(join(tmpdir(), 'median-dev-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    acceptDownloads: true,
    viewport: { width: 1440, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--host-resolver-rules=MAP evil.test 127.0.0.1',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
