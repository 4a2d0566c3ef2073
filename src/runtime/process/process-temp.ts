/**
 * One private temporary directory per process (`<tmpdir>/acp-edge-XXXXXX`,
 * mode 0700), made on first use and removed when the process exits, for
 * files that belong to nothing persistent (saved command output of
 * `--no-session` sessions). A process killed with SIGKILL cannot clean up;
 * what it leaves holds only redacted output.
 * @module
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import process from "node:process";

let area: string | undefined;

/** The process's private temp directory, created on first call; removed at exit. */
export function processTempDirectory(): string {
  if (area) return area;
  const made = fs.mkdtempSync(path.join(os.tmpdir(), "acp-edge-"));
  fs.chmodSync(made, 0o700);
  area = made;
  process.once("exit", () => {
    try {
      fs.rmSync(made, { recursive: true, force: true });
    } catch {
      // Exiting anyway; a leftover directory holds only redacted output.
    }
  });
  return made;
}
