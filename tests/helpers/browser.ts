/**
 * Headless Chromium for the console's browser tests: Debian's `chromium`
 * (installed by the CI script, never downloaded), driven by playwright-core
 * with a fresh profile per launch.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

export const CHROMIUM = process.env.ACP_EDGE_CHROMIUM ?? "/usr/bin/chromium";

/** Launches headless Chromium with a fresh profile (its tabs share it); `close()` also removes the profile. */
export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium) or set ACP_EDGE_CHROMIUM`);
  const profile = mkdtempSync(join(tmpdir(), "acp-edge-chromium-"));
  // The profile goes in as launchPersistentContext's directory: playwright passes it as --user-data-dir.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
