/**
 * "Is this file the program's entry point?" — `import.meta.main` on Bun and
 * Deno; on Node 20 compare the module URL with the script path.
 * @module
 */
import process from "node:process";
import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";

export function isMainModule(meta: ImportMeta): boolean {
  const flag = (meta as ImportMeta & { main?: boolean }).main;
  if (typeof flag === "boolean") return flag;
  const script = process.argv[1];
  if (!script) return false;
  try {
    return pathToFileURL(realpathSync(script)).href === meta.url;
  } catch {
    return false;
  }
}
