/**
 * Path arithmetic for the host platform. Re-exported so that layers above
 * never import `node:` modules themselves.
 * @module
 */
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const {
  join,
  resolve,
  relative,
  dirname,
  basename,
  extname,
  isAbsolute,
  normalize,
  sep,
  delimiter,
} = path;

export function fileUrlToPath(url: string | URL): string {
  return fileURLToPath(url);
}

export function pathToFileUrl(p: string): URL {
  return pathToFileURL(p);
}

/** True when `path` is `root` or lies below it (both absolute and normalised). */
export function isWithin(path: string, root: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(prefix);
}

/** The root of `roots` that contains `path`, the deepest one when roots nest. */
export function containingRoot(path: string, roots: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const root of roots) {
    if (isWithin(path, root) && (best === undefined || root.length > best.length)) best = root;
  }
  return best;
}
