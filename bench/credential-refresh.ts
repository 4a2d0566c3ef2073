/**
 * What a running agent pays to notice a login made by another process: the
 * check `session/new` and `authenticate` make before choosing a model (two
 * `stat` calls; files read again only when they changed). Prompts never pay it.
 * Usage: bun bench/credential-refresh.ts   (or deno run -A bench/credential-refresh.ts)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CredentialFiles } from "../src/config/credential-files.ts";
import { homePaths } from "../src/config/home.ts";
import { loadUserConfig } from "../src/config/load.ts";

const home = mkdtempSync(join(tmpdir(), "acp-edge-bench-credentials-"));
try {
  writeFileSync(join(home, "auth.json"), JSON.stringify({ anthropic: { type: "api_key", key: "sk-ant-bench-0123456789" } }), { mode: 0o600 });
  writeFileSync(join(home, "settings.json"), "{}");
  const files = new CredentialFiles(homePaths(home), await loadUserConfig(home));
  const time = async (count: number, between?: (i: number) => void) => {
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      between?.(i);
      await files.refresh();
    }
    return ((performance.now() - started) * 1000) / count;
  };
  await time(2000);
  console.log(`unchanged files: ${(await time(20000)).toFixed(1)} µs per check`);
  const changed = await time(2000, (i) => writeFileSync(join(home, "auth.json"), JSON.stringify({ anthropic: { type: "api_key", key: `sk-ant-bench-${i}-0123456789` } })));
  console.log(`auth.json rewritten before each check (write included): ${changed.toFixed(1)} µs per check`);
} finally {
  rmSync(home, { recursive: true, force: true });
}
