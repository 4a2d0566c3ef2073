/**
 * Where Node's compile cache may live: only in folders nobody else can
 * write, at every level below the user's cache folder. Compiled code read
 * from a folder another user can fill, rename or swap would run as this
 * user. Runs on every runtime (the folder check is plain file-system work).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { privateCacheDirectory, userCacheRoot } from "../../src/runtime/host/compile-cache.ts";

const made: string[] = [];

function scratch(): string {
  const root = mkdtempSync(join(tmpdir(), "acp-edge-cache-"));
  made.push(root);
  return root;
}

afterEach(() => {
  for (const root of made.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("privateCacheDirectory", () => {
  test("a private cache folder is made and used", () => {
    const root = join(scratch(), "cache");
    expect(privateCacheDirectory(root)).toBe(join(root, "acp-edge", "compile-cache"));
    expect(existsSync(join(root, "acp-edge", "compile-cache"))).toBe(true);
  });

  test("an app folder that others may write is refused: they could swap the cache folder inside it", () => {
    const root = scratch();
    mkdirSync(join(root, "acp-edge"));
    chmodSync(join(root, "acp-edge"), 0o777);
    expect(privateCacheDirectory(root)).toBeUndefined();
  });

  test("a cache root that others may write without the sticky bit is refused: they could rename the app folder", () => {
    const root = join(scratch(), "shared");
    mkdirSync(root);
    chmodSync(root, 0o777);
    expect(privateCacheDirectory(root)).toBeUndefined();
  });

  test("a shared sticky root (like /tmp) is usable through an app folder of our own", () => {
    const root = join(scratch(), "sticky");
    mkdirSync(root);
    chmodSync(root, 0o1777);
    expect(privateCacheDirectory(root)).toBe(join(root, "acp-edge", "compile-cache"));
  });

  test("an app folder that is a symbolic link is refused: in a shared root its owner could point it elsewhere later", () => {
    const root = scratch();
    const elsewhere = join(root, "elsewhere");
    mkdirSync(elsewhere, { mode: 0o700 });
    const shared = join(root, "shared");
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    symlinkSync(elsewhere, join(shared, "acp-edge"));
    expect(privateCacheDirectory(shared)).toBeUndefined();
  });
});

describe("userCacheRoot", () => {
  test("the XDG folder, ~/.cache, ~/Library/Caches and %LOCALAPPDATA%", () => {
    expect(userCacheRoot({ platform: "linux", home: "/home/u", xdgCacheHome: "/var/cache/u" })).toBe("/var/cache/u");
    expect(userCacheRoot({ platform: "linux", home: "/home/u" })).toBe("/home/u/.cache");
    expect(userCacheRoot({ platform: "darwin", home: "/Users/u" })).toBe("/Users/u/Library/Caches");
    expect(userCacheRoot({ platform: "win32", home: "C:\\Users\\u", localAppData: "C:\\Users\\u\\AppData\\Local" })).toBe("C:\\Users\\u\\AppData\\Local");
  });

  test("a relative HOME, XDG folder or LOCALAPPDATA gives no cache: it would land in whatever folder the agent was started in", () => {
    // Node's os.homedir() returns $HOME as it is, relative or not.
    expect(userCacheRoot({ platform: "linux", home: "project" })).toBeUndefined();
    expect(userCacheRoot({ platform: "linux", home: ".", xdgCacheHome: "cache" })).toBeUndefined();
    expect(userCacheRoot({ platform: "darwin", home: "." })).toBeUndefined();
    expect(userCacheRoot({ platform: "win32", home: ".", localAppData: "AppData" })).toBeUndefined();
  });
});
