/**
 * Which bubblewrap to trust. Never one found on `PATH`: a project's
 * `.venv/bin`, `node_modules/.bin` or direnv folder on `PATH` — or a file a
 * confined command wrote there — would otherwise stand in for the sandbox
 * and run every "confined" command free. Only the system's own folders are
 * searched (or the one program the user names in their settings), and a
 * candidate counts only when no one but root can change it: the file and
 * every folder above it owned by root and writable by no group or other.
 * @module
 */
import fs from "node:fs";
import path from "node:path";

/** The system's folders for programs, searched in this order. */
export const SYSTEM_PROGRAM_FOLDERS = ["/usr/bin", "/bin", "/usr/local/bin", "/usr/sbin", "/sbin", "/usr/local/sbin"] as const;

/** The program and its symlink-free location, or why none can be trusted (a sentence for the user). */
export type TrustedProgram = { program: string } | { refused: string };

/** The trusted `name` among the system's folders, or `named` (a user setting) when given; undefined when there is none at all. */
export function trustedProgram(name: string, named?: string): TrustedProgram | undefined {
  if (named !== undefined) return checkOwnership(named);
  let refusal: TrustedProgram | undefined;
  for (const folder of SYSTEM_PROGRAM_FOLDERS) {
    const candidate = path.join(folder, name);
    if (!fs.existsSync(candidate)) continue;
    const checked = checkOwnership(candidate);
    if ("program" in checked) return checked;
    refusal ??= checked;
  }
  return refusal;
}

/** The real location of `file` when it and every folder above it are root's and writable by no one else. */
function checkOwnership(file: string): TrustedProgram {
  if (!path.isAbsolute(file)) return { refused: `${file} is not an absolute path` };
  let real: string;
  try {
    real = fs.realpathSync(file);
    fs.accessSync(real, fs.constants.X_OK);
  } catch {
    return { refused: `${file} is not an executable file` };
  }
  for (let at = real; ; at = path.dirname(at)) {
    const info = fs.statSync(at);
    if (at === real && !info.isFile()) return { refused: `${file} is not an executable file` };
    // Anyone who can replace the program (or a folder above it) could replace the sandbox.
    if (info.uid !== 0 || (info.mode & 0o022) !== 0) return { refused: `${real} could be changed by someone other than root (${at} is not root's alone)` };
    if (at === path.dirname(at)) return { program: real };
  }
}
