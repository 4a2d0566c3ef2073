/**
 * Instructions users leave for agents: `AGENTS.md` (or `CLAUDE.md`) in the
 * acp-edge home, then in every directory from the filesystem root down to
 * the session's cwd — outermost first, so the nearest file speaks last.
 * @module
 */
import { readTextFile, isNotFound } from "../runtime/fs.ts";
import { dirname, join, resolve } from "../runtime/path.ts";
import { log } from "../runtime/log.ts";

export interface ContextFile {
  path: string;
  content: string;
}

const NAMES = ["AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"];
/** Larger files are cut: they would crowd the context window on every request. */
const MAX_BYTES = 64 * 1024;

async function firstIn(directory: string): Promise<ContextFile | undefined> {
  for (const name of NAMES) {
    const path = join(directory, name);
    try {
      let content = await readTextFile(path);
      if (content.length > MAX_BYTES) content = `${content.slice(0, MAX_BYTES)}\n[truncated at 64 KiB]`;
      return { path, content };
    } catch (error) {
      if (!isNotFound(error) && (error as { code?: string }).code !== "EISDIR") log.warn(`cannot read ${path}`, error);
    }
  }
  return undefined;
}

/** Directories from the root down to `cwd`, inclusive. */
function ancestry(cwd: string): string[] {
  const chain: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  return chain;
}

export async function loadContextFiles(home: string, cwd: string): Promise<ContextFile[]> {
  const directories = [home, ...ancestry(cwd).filter((d) => d !== home)];
  const found = await Promise.all(directories.map(firstIn));
  return found.filter((f): f is ContextFile => f !== undefined);
}
