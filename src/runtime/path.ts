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
} = path;

export function fileUrlToPath(url: string | URL): string {
  return fileURLToPath(url);
}

export function pathToFileUrl(p: string): URL {
  return pathToFileURL(p);
}
