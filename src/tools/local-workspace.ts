/**
 * The `Workspace` for a session whose files are on this machine's disk.
 * @module
 */
import { readFileBytes, readFileHead, readTextFile, realPath, stat, writeFileAtomic } from "../runtime/files/fs.ts";
import { runLocalCommand } from "./shell/local-exec.ts";
import { startLocalBackground } from "./shell/local-background.ts";
import { resolve } from "../runtime/files/path.ts";
import type { Workspace } from "./types.ts";

/**
 * A workspace over the local disk. `cwd` is kept as given (made absolute) so
 * that paths shown to people look like theirs; roots are realpath'd so that
 * confinement checks compare symlink-free paths. `outputDirectory` says
 * where full command output is saved (the session's directory).
 */
export async function createLocalWorkspace(
  cwd: string,
  additionalDirectories: string[],
  options: { outputDirectory?: () => Promise<string> } = {},
): Promise<Workspace> {
  const absoluteCwd = resolve(cwd);
  const roots: string[] = [];
  for (const dir of [absoluteCwd, ...additionalDirectories.map((d) => resolve(absoluteCwd, d))]) {
    const real = await realPath(dir);
    if (!(await stat(real)).isDirectory) throw new Error(`Not a directory: ${dir}`);
    if (!roots.includes(real)) roots.push(real);
  }
  return {
    cwd: absoluteCwd,
    roots,
    async readTextFile(path, signal) {
      signal?.throwIfAborted();
      return await readTextFile(path);
    },
    async readFileBytes(path, maxBytes) {
      return maxBytes === undefined ? await readFileBytes(path) : await readFileHead(path, maxBytes);
    },
    async writeTextFile(path, content, signal) {
      signal?.throwIfAborted();
      // A change someone makes while the content is written wins (ECHANGED) rather than being lost.
      await writeFileAtomic(path, content, { ifUnchanged: true });
    },
    exec: (request) => runLocalCommand(request, options.outputDirectory ? { outputDirectory: options.outputDirectory } : {}),
    startBackground: (request) => startLocalBackground(request),
  };
}
