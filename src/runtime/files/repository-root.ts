/**
 * The git repository a folder belongs to, as far as the agent trusts it to
 * speak for the project: the nearest folder at or above it holding `.git` (a
 * folder, or a file in worktrees and submodules), when that folder and its
 * `.git` have the same owner as the folder the search starts from (the
 * session's cwd) — git refuses repositories of other users the same way
 * (`safe.directory`), so a `.git` someone else planted in a shared folder
 * above the project does not count. (The owner is compared with the cwd's
 * rather than the agent's own user id, which Deno only gives with
 * `--allow-sys=uid`.) The search stops below the user's home directory: a
 * home kept under git (dotfiles) does not make every folder in it one project.
 * @module
 */
import fs from "node:fs/promises";
import { dirname, join } from "./path.ts";
import { userHomeDirectory } from "../process/process.ts";

/** The repository root for `realFolder` (a resolved path), or undefined when there is none the agent trusts. */
export async function repositoryRoot(realFolder: string, userHome = userHomeDirectory()): Promise<string | undefined> {
  const home = userHome === undefined ? undefined : await fs.realpath(userHome).catch(() => userHome);
  const owner = (await fs.lstat(realFolder).catch(() => undefined))?.uid;
  if (owner === undefined) return undefined;
  for (let dir = realFolder; ; dir = dirname(dir)) {
    if (dir === home || dirname(dir) === dir) return undefined;
    const marker = await fs.lstat(join(dir, ".git")).catch(() => undefined);
    if (marker) {
      const folder = await fs.lstat(dir).catch(() => undefined);
      return marker.uid === owner && folder?.uid === owner ? dir : undefined;
    }
  }
}
