/**
 * Node's on-disk cache of compiled code (`module.enableCompileCache`, Node
 * 22.1 and later): the next start of the same program on the same Node skips
 * most of its compiling. Feature-detected, so Node 20, Bun and Deno start as
 * before; a cache that cannot be used costs only the time it would have saved.
 * @module
 */
import { lstatSync, mkdirSync, statSync } from "node:fs";
import module from "node:module";
import os from "node:os";
import { isAbsolute, join, win32 } from "node:path";
import process from "node:process";
import { detectRuntime } from "./detect.ts";

type EnableCompileCache = (directory?: string) => { status: number; message?: string; directory?: string };

/** Turns the compile cache on (Node 22.1+ only); call it before the rest of the program is imported. */
export function enableCompileCache(): void {
  const enable = (module as unknown as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  if (typeof enable !== "function" || detectRuntime() !== "node") return;
  try {
    // NODE_COMPILE_CACHE and NODE_DISABLE_COMPILE_CACHE are Node's own switches; Node honours them without a directory from us.
    if (process.env.NODE_COMPILE_CACHE || process.env.NODE_DISABLE_COMPILE_CACHE) return void enable();
    const sources = { platform: process.platform, home: os.homedir(), xdgCacheHome: process.env.XDG_CACHE_HOME, localAppData: process.env.LOCALAPPDATA };
    const directory = privateCacheDirectory(userCacheRoot(sources));
    if (directory) enable(directory);
  } catch {
    // Start without the cache.
  }
}

/** What the user's cache folder is found from. */
export interface CacheRootSources {
  platform: string;
  home: string;
  xdgCacheHome?: string | undefined;
  localAppData?: string | undefined;
}

/**
 * The user's own cache folder for this OS, when there is one. Only an
 * absolute folder counts: Node's `os.homedir()` returns `$HOME` as it is,
 * and a relative one would put the cache in whatever folder the agent was
 * started in (the user's project).
 */
export function userCacheRoot({ platform, home, xdgCacheHome, localAppData }: CacheRootSources): string | undefined {
  const absolute = (folder: string | undefined): folder is string => Boolean(folder) && (platform === "win32" ? win32.isAbsolute(folder!) : isAbsolute(folder!));
  if (platform === "win32") return absolute(localAppData) ? localAppData : undefined;
  if (platform === "darwin") return absolute(home) ? join(home, "Library", "Caches") : undefined;
  if (absolute(xdgCacheHome)) return xdgCacheHome;
  return absolute(home) ? join(home, ".cache") : undefined;
}

/**
 * `<root>/acp-edge/compile-cache`, made one level at a time (a recursive
 * make can spin forever on some virtual file systems), and used only when
 * nobody else can change what it holds: compiled code read from a folder
 * others can fill would run as this user. So the root may be shared only
 * with the sticky bit (others cannot rename what is ours in it, as in
 * `/tmp`), and both folders below it must be real folders (not links, whose
 * owner could point them elsewhere later) of this user that only it may write.
 */
export function privateCacheDirectory(root: string | undefined): string | undefined {
  if (!root) return undefined;
  const app = join(root, "acp-edge");
  const directory = join(app, "compile-cache");
  for (const folder of [root, app, directory]) {
    try {
      mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") return undefined;
    }
  }
  if (process.platform === "win32") return statSync(directory).isDirectory() ? directory : undefined;
  const uid = process.getuid?.();
  const rootStats = statSync(root);
  const othersMayWrite = (mode: number) => (mode & 0o022) !== 0;
  if (!rootStats.isDirectory() || (othersMayWrite(rootStats.mode) && (rootStats.mode & 0o1000) === 0)) return undefined;
  if (rootStats.uid !== uid && rootStats.uid !== 0) return undefined;
  for (const folder of [app, directory]) {
    const stats = lstatSync(folder);
    if (!stats.isDirectory() || stats.uid !== uid || othersMayWrite(stats.mode)) return undefined;
  }
  return directory;
}
