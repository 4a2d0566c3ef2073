/**
 * The git repository a folder belongs to, as far as the agent trusts it to
 * speak for the project: the nearest folder at or above it holding `.git` (a
 * folder, or a file in worktrees and submodules), when both that folder and
 * its `.git` belong to the user running the agent — git refuses others'
 * repositories the same way (`safe.directory`), so a `.git` another user
 * planted in a shared folder above the project does not count. The search
 * stops below the user's home directory: a home kept under git (dotfiles)
 * does not make every folder in it one project.
 * @module
 */
import fs from "node:fs/promises";
import process from "node:process";
import { dirname, join } from "./path.ts";
import { homeDirectory } from "./process.ts";

/** The repository root for `realFolder` (a resolved path), or undefined when there is none the agent trusts. */
export async function repositoryRoot(realFolder: string, userHome = homeDirectory()): Promise<string | undefined> {
  const home = await fs.realpath(userHome).catch(() => userHome);
  const uid = process.getuid?.();
  for (let dir = realFolder; ; dir = dirname(dir)) {
    if (dir === home || dirname(dir) === dir) return undefined;
    const marker = await fs.lstat(join(dir, ".git")).catch(() => undefined);
    if (marker) {
      if (uid === undefined) return dir;
      const folder = await fs.lstat(dir).catch(() => undefined);
      return marker.uid === uid && folder?.uid === uid ? dir : undefined;
    }
  }
}
