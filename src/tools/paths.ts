/**
 * Turning a model-supplied path into an absolute one, and refusing paths
 * that leave the session's directories (lexically or through symlinks).
 * @module
 */
import { errorCode, isNotFound, lstat, realPath } from "../runtime/files/fs.ts";
import { containingRoot, dirname, isWithin, join, relative, resolve, sep } from "../runtime/files/path.ts";
import { homeDirectory } from "../runtime/process/process.ts";
import { ToolError, type Workspace } from "./types.ts";

// Models copy paths out of prompts and screenshots; these spaces look like ' ' but are not.
const UNICODE_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

/** Strips one leading `@`, expands `~`, and resolves against `cwd` (no disk access). */
export function toAbsolute(input: string, cwd: string): string {
  let p = input.replace(UNICODE_SPACES, " ");
  if (p.startsWith("@")) p = p.slice(1);
  if (p === "~") p = homeDirectory();
  else if (p.startsWith("~/")) p = join(homeDirectory(), p.slice(2));
  if (p === "") p = ".";
  // resolve() also normalises and drops a trailing separator, for absolute inputs too.
  return resolve(cwd, p);
}

/** How a path is shown to people: relative POSIX when under `cwd` (`.` for cwd), otherwise absolute. */
export function displayPath(absolute: string, cwd: string): string {
  if (absolute === cwd) return ".";
  if (isWithin(absolute, cwd)) return toPosix(relative(cwd, absolute));
  return absolute;
}

/** Replaces the platform separator with `/`. */
export function toPosix(p: string): string {
  return sep === "/" ? p : p.split(sep).join("/");
}

/**
 * Where `absolute` really lives: the realpath of the path, or of its nearest
 * existing ancestor with the missing segments appended. A path that exists
 * but cannot be resolved (dangling symlink, loop) is refused, because writing
 * through it could land anywhere.
 */
export async function realLocation(absolute: string, shown: string): Promise<string> {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = await realPath(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch (error) {
      if (!isNotFound(error)) {
        if (errorCode(error) === "ELOOP") throw new ToolError(`Path "${shown}" is a symbolic link loop.`);
        throw new ToolError(`Cannot resolve path "${shown}": ${(error as Error).message}`);
      }
    }
    if (await existsAsLink(current)) {
      throw new ToolError(`Path "${shown}" goes through a broken symbolic link; refusing to follow it.`);
    }
    const parent = dirname(current);
    if (parent === current) return absolute;
    missing.push(current.slice(parent.length).replace(/^[\\/]+/, ""));
    current = parent;
  }
}

async function existsAsLink(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink;
  } catch {
    return false;
  }
}

/**
 * Resolves a tool's path argument and checks that it lies inside one of the
 * workspace roots after following symlinks, unless the call was approved to
 * reach outside them. Returns the absolute (lexical) path; throws `ToolError`
 * naming the roots when it escapes them.
 */
export async function resolveInRoots(input: string, workspace: Workspace, action = "accessed", outsideApproved = false): Promise<string> {
  const absolute = toAbsolute(input, workspace.cwd);
  const real = await realLocation(absolute, input);
  if (!outsideApproved && containingRoot(real, workspace.roots) === undefined) {
    throw new ToolError(
      `Path "${input}" is outside the session's directories (${workspace.roots.join(", ")}). ` +
        `Only files under them can be ${action}.`,
    );
  }
  return absolute;
}
