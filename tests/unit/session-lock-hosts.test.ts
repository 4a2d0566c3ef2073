/**
 * Session locks across hosts: stores sharing one directory from different
 * hosts (containers that are all pid 1), judged by heartbeat; on one host,
 * judged by pid and process start time.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { buildSync } from "esbuild";
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cwdSlug } from "../../src/store/cwd-slug.ts";
import { lockSettings, type LockSettings } from "../../src/store/lock-record.ts";
import { createJsonlStore } from "../../src/store/jsonl-store.ts";
import { StoreError, type SessionStore } from "../../src/store/types.ts";
import { rejection, waitFor } from "../helpers/expect-error.ts";

const root = mkdtempSync(join(tmpdir(), "acp-edge-locks-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;

const CWD = "/srv/app";
/** A heartbeat that never beats within a test: the holder might as well have crashed. */
const SILENT = { heartbeatMs: 600_000, staleAfterMs: 1_200_000 };
/** Judges quickly: a lock is stale 300 ms after its last heartbeat. */
const QUICK = { heartbeatMs: 50, staleAfterMs: 300 };

function storeAt(dir: string, lock: Partial<LockSettings>): SessionStore {
  return createJsonlStore(dir, { lock });
}

/** A shared directory; `holder` creates sess_x and keeps it open. */
async function heldBy(holder: Partial<LockSettings>) {
  const dir = join(root, `d${++counter}`);
  const journal = await storeAt(dir, holder).create({ id: "sess_x", cwd: CWD, additionalDirectories: [] });
  await journal.append({ type: "message", n: 0 });
  return { dir, journal, lockPath: join(dir, cwdSlug(CWD), "sess_x.jsonl.lock") };
}

const lockedBy = async (promise: Promise<unknown>) => {
  const error = await rejection(promise, StoreError);
  expect(error.code).toBe("locked");
  return error.message;
};
/** Makes the lock look as if its last heartbeat was `seconds` ago. */
const ageLock = (lockPath: string, seconds: number) => {
  const then = new Date(Date.now() - seconds * 1000);
  utimesSync(lockPath, then, then);
};
const holderOf = (lockPath: string) => JSON.parse(readFileSync(lockPath, "utf8")) as { pid: number; host: { name: string }; instance: string };

describe("locks across hosts", () => {
  test("two hosts, both pid 1: the second is refused until the first's heartbeat expires, then takes over", async () => {
    const { dir, journal, lockPath } = await heldBy({ host: { name: "web-1" }, instance: "a", pid: 1, ...SILENT });
    const second = storeAt(dir, { host: { name: "web-2" }, instance: "b", pid: 1, ...QUICK });
    expect(await lockedBy(second.open("sess_x"))).toBe(
      "session sess_x is open in another acp-edge process (pid 1 on host web-1); close it there first, or wait until its lock expires 1 s after its last heartbeat",
    );
    expect(await lockedBy(second.delete("sess_x"))).toContain("on host web-1");
    // Archiving ends the session's work, which runs elsewhere: refused; taking it out of the archive is harmless.
    expect(await lockedBy(second.setArchived("sess_x", true))).toContain("on host web-1");
    await second.setArchived("sess_x", false);
    expect((await second.list({ archived: "only" })).sessions).toEqual([]);
    expect(holderOf(lockPath)).toMatchObject({ pid: 1, host: { name: "web-1" }, instance: "a" });

    ageLock(lockPath, 1);
    const { journal: taken, entries } = await second.open("sess_x");
    expect(entries).toHaveLength(1);
    expect(holderOf(lockPath)).toMatchObject({ pid: 1, host: { name: "web-2" }, instance: "b" });
    await taken.close();
    await journal.close().catch(() => undefined);
  });

  test("a live holder on another host keeps its lock: its heartbeat refreshes the lock's mtime", async () => {
    const { dir, journal, lockPath } = await heldBy({ host: { name: "web-1" }, instance: "a", pid: 1, ...QUICK });
    const second = storeAt(dir, { host: { name: "web-2" }, instance: "b", pid: 1, ...QUICK });
    ageLock(lockPath, 10);
    await waitFor(() => Date.now() - statSync(lockPath).mtimeMs < 1000, 5000, "the holder's heartbeat");
    expect(await lockedBy(second.open("sess_x"))).toContain("pid 1 on host web-1");
    await journal.close();
    const { journal: reopened } = await second.open("sess_x");
    await reopened.close();
  });

  test("a holder whose lock was taken over stops appending", async () => {
    const { journal, lockPath } = await heldBy({ host: { name: "web-1" }, instance: "a", pid: 1, ...QUICK });
    // What a takeover on another host leaves in the file.
    writeFileSync(lockPath, JSON.stringify({ pid: 1, at: new Date().toISOString(), token: "theirs", host: { name: "web-2" }, instance: "b" }));
    let message = "";
    async function appendUntilRefused() {
      for (;;) {
        try {
          await journal.append({ type: "message", n: 1 });
        } catch (error) {
          message = (error as Error).message;
          return;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    void appendUntilRefused();
    await waitFor(() => message !== "", 5000, "appends to be refused");
    expect(message).toContain("was taken over by another acp-edge process");
    await journal.close().catch(() => undefined);
    expect(holderOf(lockPath).instance).toBe("b"); // closing left the new holder's lock alone
  });
});

describe("locks on one host", () => {
  const host = { name: "box" };

  test("a dead holder's lock is stale at once, heartbeat or not", async () => {
    const dead = spawnSync("true").pid as number;
    const { dir, journal, lockPath } = await heldBy({ host, instance: "a", pid: dead, ...SILENT });
    const { journal: taken } = await storeAt(dir, { host, instance: "b", ...QUICK }).open("sess_x");
    expect(holderOf(lockPath).instance).toBe("b");
    await taken.close();
    await journal.close().catch(() => undefined);
  });

  test("a live holder keeps it; the same pid started anew (reused) does not", async () => {
    const sleeper = Bun.spawn(["sleep", "30"]);
    try {
      const { dir, journal, lockPath } = await heldBy({ host, instance: "a", pid: sleeper.pid, ...QUICK });
      const second = storeAt(dir, { host, instance: "b", ...QUICK });
      ageLock(lockPath, 10); // even a late heartbeat does not matter while the holder provably lives
      expect(await lockedBy(second.open("sess_x"))).toBe(
        `session sess_x is open in another acp-edge process (pid ${sleeper.pid}); close it there first`,
      );
      await journal.close();

      const reused = { pid: sleeper.pid, at: new Date().toISOString(), token: "t", host, instance: "a", started: "1" };
      writeFileSync(lockPath, JSON.stringify(reused));
      const { journal: taken } = await second.open("sess_x");
      expect(holderOf(lockPath).instance).toBe("b");
      await taken.close();
    } finally {
      sleeper.kill("SIGKILL");
      await sleeper.exited;
    }
  });

  test("a lock naming no host (an older version's) is judged by its heartbeat, even when its pid is ours", async () => {
    const dir = join(root, `d${++counter}`);
    const store = storeAt(dir, { ...QUICK });
    const created = await store.create({ id: "sess_x", cwd: CWD, additionalDirectories: [] });
    await created.close();
    const lockPath = join(dir, cwdSlug(CWD), "sess_x.jsonl.lock");
    writeFileSync(lockPath, JSON.stringify({ pid: process.pid, at: new Date().toISOString(), token: "old" }));
    expect(await lockedBy(store.open("sess_x"))).toContain("on a host its lock does not name");
    ageLock(lockPath, 1);
    const { journal } = await store.open("sess_x");
    await journal.close();
  });

  test("timings under which a live holder could look stale are refused", () => {
    expect(() => lockSettings({ heartbeatMs: 100, staleAfterMs: 150 })).toThrow("at least twice the heartbeat");
    expect(() => createJsonlStore(join(root, "never"), { lock: { heartbeatMs: 0 } })).toThrow("at least twice");
  });
});

describe("the heartbeat on other runtimes", () => {
  const helper = join(import.meta.dir, "..", "helpers", "lock-heartbeat-check.ts");
  const expectBeats = (out: { stdout: string; stderr: string; status: number | null }) => {
    expect(out.stderr).toBe("");
    expect(out.stdout.trim()).toBe(JSON.stringify({ refreshed: true }));
    expect(out.status).toBe(0); // exited on its own while still holding the lock
  };

  test("node (bundled)", () => {
    const outfile = join(root, "lock-heartbeat-check.mjs");
    buildSync({ entryPoints: [helper], bundle: true, platform: "node", format: "esm", outfile, logLevel: "warning" });
    expectBeats(spawnSync("node", [outfile, join(root, `d${++counter}`)], { encoding: "utf8", timeout: 10_000 }));
  });

  test("deno", () => {
    const deno = join(import.meta.dir, "..", "..", "node_modules", ".bin", "deno");
    expectBeats(spawnSync(deno, ["run", "-A", "--quiet", helper, join(root, `d${++counter}`)], { encoding: "utf8", timeout: 20_000 }));
  });
});
