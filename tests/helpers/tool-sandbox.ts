/**
 * A project directory for tool tests: `root` (the session's cwd, with a
 * `dir/` inside), a directory `outside` it holding `secret.txt`, a symlink
 * `root/dir-out` that escapes to it, and a local Workspace over `root`.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalWorkspace } from "../../src/tools/local-workspace.ts";
import type { ToolContext, ToolResult, Workspace } from "../../src/tools/types.ts";

export interface ToolSandbox {
  base: string;
  root: string;
  outside: string;
  workspace: Workspace;
  /** A tool context over the workspace with a fresh signal. */
  context(extra?: Partial<ToolContext>): ToolContext;
  cleanup(): void;
}

export async function makeToolSandbox(prefix: string, secret = "secret\n"): Promise<ToolSandbox> {
  const base = mkdtempSync(join(realpathSync(tmpdir()), prefix));
  const root = join(base, "proj");
  const outside = join(base, "outside");
  mkdirSync(join(root, "dir"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), secret);
  symlinkSync(outside, join(root, "dir-out"));
  const workspace = await createLocalWorkspace(root, []);
  return {
    base,
    root,
    outside,
    workspace,
    context: (extra = {}) => ({ workspace, signal: new AbortController().signal, ...extra }),
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** The text of a result's first content part. */
export const firstText = (result: ToolResult): string => (result.content[0] as { type: "text"; text: string }).text;
