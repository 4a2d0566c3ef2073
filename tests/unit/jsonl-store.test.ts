/**
 * What only the JSONL store does: files, modes, damage tolerance, locks
 * between processes, and crash safety under SIGKILL.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { rejection } from "../helpers/expect-error.ts";
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hostIdentity } from "../../src/runtime/host/host-identity.ts";
import { processStartTime } from "../../src/runtime/process/process.ts";
import { cwdSlug } from "../../src/store/cwd-slug.ts";
import { JsonlJournal } from "../../src/store/jsonl-journal.ts";
import { createJsonlStore } from "../../src/store/jsonl-store.ts";
import { StoreError } from "../../src/store/types.ts";

const root = mkdtempSync(join(tmpdir(), "acp-edge-jsonl-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
const freshDir = () => join(root, `s${++counter}`);

const storeError = (promise: Promise<unknown>): Promise<StoreError> => rejection(promise, StoreError);

/** A lock file as another acp-edge process on this host writes it (see docs/storage.md). */
function lockOnThisHost(pid: number): string {
  const started = processStartTime(pid);
  return JSON.stringify({ pid, at: new Date().toISOString(), token: "t0", host: hostIdentity(), instance: "another-process", ...(started ? { started } : {}) });
}

/** A closed session with `count` entries; returns its store, dir and file. */
async function sessionWith(count: number, id = "sess_x", cwd = "/home/u/my proj") {
  const dir = freshDir();
  const store = createJsonlStore(dir);
  const journal = await store.create({ id, cwd, additionalDirectories: [] });
  for (let n = 0; n < count; n++) await journal.append({ type: "message", n });
  await journal.close();
  return { store, dir, file: join(dir, cwdSlug(cwd), `${id}.jsonl`) };
}

function headerLine(fields: Record<string, unknown> = {}): string {
  return `${JSON.stringify({ type: "session", version: 1, id: "sess_h", cwd: "/h", additionalDirectories: [], createdAt: "2025-01-01T00:00:00.000Z", ...fields })}\n`;
}

/** A session file written by hand into a store directory. */
function handWritten(content: string, id = "sess_h") {
  const dir = freshDir();
  mkdirSync(join(dir, "--h--"), { recursive: true });
  const file = join(dir, "--h--", `${id}.jsonl`);
  writeFileSync(file, content);
  return { store: createJsonlStore(dir), file };
}

describe("cwd slug", () => {
  test("is readable and file-system safe", () => {
    expect(cwdSlug("/home/u/my proj")).toBe("--home-u-my_proj--");
    expect(cwdSlug("C:\\Users\\me\\code")).toBe("--C--Users-me-code--");
    expect(cwdSlug("/srv/a*b?c<d>|\"e\tf")).toBe("--srv-a_b_c_d___e_f--");
  });

  test("long cwds are cut with a hash, and never collide", () => {
    const base = `/very/${"long/".repeat(40)}`;
    const a = cwdSlug(`${base}alpha`);
    const b = cwdSlug(`${base}beta`);
    expect(a.length).toBeLessThanOrEqual(120);
    expect(b.length).toBeLessThanOrEqual(120);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^--very-long-.*-[0-9a-f]{12}--$/);
  });
});

describe("jsonl store files", () => {
  test("layout: <dir>/<slug>/<id>.jsonl, header then one line per entry, 0600 files in 0700 directories", async () => {
    const dir = freshDir();
    const store = createJsonlStore(dir);
    const journal = await store.create({ id: "sess_lay", cwd: "/home/u/my proj", additionalDirectories: ["/x"] });
    const file = join(dir, "--home-u-my_proj--", "sess_lay.jsonl");
    const lock = `${file}.lock`;
    expect(JSON.parse(readFileSync(lock, "utf8"))).toMatchObject({ pid: process.pid });
    expect(Date.parse(JSON.parse(readFileSync(lock, "utf8")).at)).not.toBeNaN();
    expect(statSync(lock).mode & 0o777).toBe(0o600);
    await journal.append({ type: "message", message: { role: "user", content: [{ type: "text", text: "hi" }] } });
    await journal.close();
    expect(existsSync(lock)).toBe(false);

    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "--home-u-my_proj--")).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    const lines = text.trimEnd().split("\n").map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toEqual({
      type: "session",
      version: 1,
      id: "sess_lay",
      cwd: "/home/u/my proj",
      additionalDirectories: ["/x"],
      createdAt: expect.any(String),
    });
    expect(Object.keys(lines[1]).slice(0, 2)).toEqual(["type", "at"]);
  });

  test("sync and { sync: true } put the data in the file before they resolve", async () => {
    const { store, file } = await sessionWith(0);
    const { journal } = await store.open("sess_x");
    await journal.append({ type: "a" }, { sync: true });
    expect(readFileSync(file, "utf8")).toContain('"type":"a"');
    void journal.append({ type: "b" });
    await journal.sync();
    expect(readFileSync(file, "utf8")).toContain('"type":"b"');
    await journal.close();
  });

  test("fsync happens exactly where promised: sync appends, sync() and close, in order", async () => {
    const calls: string[] = [];
    const handle = {
      append: async (data: string) => void calls.push(`write ${JSON.parse(data).type}`),
      sync: async () => void calls.push("fsync"),
      close: async () => void calls.push("close"),
    };
    const lock = { release: async () => void calls.push("unlock") };
    const journal = new JsonlJournal("sess_f", join(root, "never-written.jsonl"), handle, lock, true);
    await journal.append({ type: "plain" });
    expect(calls).toEqual(["write plain"]);
    await journal.append({ type: "durable" }, { sync: true });
    expect(calls).toEqual(["write plain", "write durable", "fsync"]);
    const pending = journal.append({ type: "queued" });
    await journal.sync();
    await pending;
    await Promise.all([journal.close(), journal.close()]);
    expect(calls).toEqual(["write plain", "write durable", "fsync", "write queued", "fsync", "fsync", "close", "unlock"]);
  });

  test("a torn last line is skipped silently", async () => {
    const { store, file } = await sessionWith(3);
    appendFileSync(file, '{"type":"message","n":3,"te');
    const session = await store.read("sess_x");
    expect(session.entries.map((e) => e.n)).toEqual([0, 1, 2]);
    expect(session.warnings).toEqual([]);
  });

  test("a complete last entry without its newline is kept", async () => {
    const { store, file } = await sessionWith(1);
    appendFileSync(file, '{"type":"message","n":1}');
    expect((await store.read("sess_x")).entries.map((e) => e.n)).toEqual([0, 1]);
  });

  test("a garbage line in the middle is skipped with a warning and later lines are kept", async () => {
    const { store, file } = await sessionWith(2);
    appendFileSync(file, 'garbage {"type"\n42\n{"no_type":true}\n{"type":"message","n":9}\n');
    const session = await store.read("sess_x");
    expect(session.entries.map((e) => e.n)).toEqual([0, 1, 9]);
    expect(session.warnings).toEqual([
      "line 4 was not valid JSON and was skipped",
      'line 5 was not an entry (a JSON object with a string "type") and was skipped',
      'line 6 was not an entry (a JSON object with a string "type") and was skipped',
    ]);
  });

  test("appending after opening a torn file starts a new line", async () => {
    const { store, file } = await sessionWith(1);
    appendFileSync(file, '{"type":"message","n":1,"torn');
    const opened = await store.open("sess_x");
    expect(opened.entries.map((e) => e.n)).toEqual([0]);
    await opened.journal.append({ type: "message", n: 2 });
    await opened.journal.close();
    expect(readFileSync(file, "utf8")).toMatch(/"torn\n\{"type":"message","at":"[^"]+","n":2\}\n$/);
    const session = await store.read("sess_x");
    expect(session.entries.map((e) => e.n)).toEqual([0, 2]);
    expect(session.warnings).toEqual(["line 3 was not valid JSON and was skipped"]);
  });

  test("a newer format version is refused with a clear message", async () => {
    const { store } = handWritten(headerLine({ version: 2 }) + '{"type":"message"}\n');
    const error = await storeError(store.read("sess_h"));
    expect(error.code).toBe("newer_format");
    expect(error.message).toBe("session sess_h was written by a newer acp-edge (format 2; this version reads format 1)");
    expect((await storeError(store.open("sess_h"))).code).toBe("newer_format");
    expect((await store.list()).sessions).toEqual([]);
  });

  test("empty and headerless files are corrupt, and list skips them", async () => {
    for (const content of ["", '{"type":"message","n":1}\n', "not json\n", headerLine({ id: "sess_other" })]) {
      const { store, file } = handWritten(content);
      const error = await storeError(store.read("sess_h"));
      expect(error.code).toBe("corrupt");
      expect(error.message).toContain(file);
      expect((await storeError(store.open("sess_h"))).code).toBe("corrupt");
      expect(existsSync(`${file}.lock`)).toBe(false); // a failed open leaves no lock behind
      expect((await store.list()).sessions).toEqual([]);
    }
    const { store } = handWritten("");
    writeFileSync(join(root, `s${counter}`, "--h--", "sess_good.jsonl"), headerLine({ id: "sess_good" }));
    expect((await store.list()).sessions.map((s) => s.id)).toEqual(["sess_good"]);
  });

  test("list titles read the last and first 64 KiB of big sessions", async () => {
    const big = { type: "tool_result", output: "o".repeat(100 * 1024) };
    const prompt = { type: "message", message: { role: "user", content: [{ type: "text", text: "the first prompt" }] } };
    const dir = freshDir();
    const store = createJsonlStore(dir);
    const write = async (id: string, entries: Array<Record<string, unknown> & { type: string }>) => {
      const journal = await store.create({ id, cwd: "/big", additionalDirectories: [] });
      for (const entry of entries) await journal.append(entry);
      await journal.close();
    };
    await write("sess_tail", [prompt, { type: "title", title: "early" }, big, { type: "title", title: "late" }]);
    await write("sess_head", [prompt, { type: "title", title: "early" }, big]);
    await write("sess_prompt", [prompt, big]);
    await write("sess_cleared", [prompt, { type: "title", title: "early" }, big, { type: "title", title: null }]);
    const titles = Object.fromEntries((await store.list()).sessions.map((s) => [s.id, s.title]));
    expect(titles).toEqual({ sess_tail: "late", sess_head: "early", sess_prompt: "the first prompt", sess_cleared: "the first prompt" });
  });

  test("lists 130 sessions quickly", async () => {
    const dir = freshDir();
    for (let i = 0; i < 130; i++) {
      const id = `sess_${i}`;
      const folder = join(dir, `--p${i % 7}--`);
      mkdirSync(folder, { recursive: true });
      const entry = { type: "message", at: "2025-01-01T00:00:00.000Z", message: { role: "user", content: [{ type: "text", text: `p${i}` }] } };
      writeFileSync(join(folder, `${id}.jsonl`), headerLine({ id, cwd: `/p${i % 7}` }) + `${JSON.stringify(entry)}\n`.repeat(20));
    }
    const store = createJsonlStore(dir);
    const started = performance.now();
    const { sessions, nextCursor } = await store.list({ limit: 200 });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(sessions).toHaveLength(130);
    expect(nextCursor).toBeUndefined();
  });

  test("a session directory that does not exist yet lists nothing", async () => {
    expect(await createJsonlStore(join(root, "missing")).list()).toEqual({ sessions: [] });
  });
});

describe("jsonl store locks", () => {
  test("a stale lock (its process has exited) is taken over", async () => {
    const { store, file } = await sessionWith(1);
    const dead = spawnSync("true").pid;
    writeFileSync(`${file}.lock`, lockOnThisHost(dead));
    const { journal, entries } = await store.open("sess_x");
    expect(entries).toHaveLength(1);
    expect(JSON.parse(readFileSync(`${file}.lock`, "utf8")).pid).toBe(process.pid);
    await journal.close();
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect(readdirSync(join(file, "..")).filter((n) => n.includes(".stale"))).toEqual([]);
  });

  test("an unreadable lock, or one left by an earlier process with this pid, is taken over", async () => {
    const { store, file } = await sessionWith(1);
    for (const content of ["{not json", lockOnThisHost(process.pid)]) {
      writeFileSync(`${file}.lock`, content);
      const { journal } = await store.open("sess_x");
      await journal.close();
    }
  });

  test("a lock held by another live process refuses open and delete", async () => {
    const { store, file } = await sessionWith(1);
    const sleeper = Bun.spawn(["sleep", "5"]);
    try {
      writeFileSync(`${file}.lock`, lockOnThisHost(sleeper.pid));
      const error = await storeError(store.open("sess_x"));
      expect(error.code).toBe("locked");
      expect(error.message).toBe(`session sess_x is open in another acp-edge process (pid ${sleeper.pid}); close it there first`);
      expect((await storeError(store.delete("sess_x"))).code).toBe("locked");
      expect(await store.exists("sess_x")).toBe(true);
      expect((await store.read("sess_x")).entries).toHaveLength(1); // reading needs no lock
    } finally {
      sleeper.kill("SIGKILL");
      await sleeper.exited;
    }
    await store.delete("sess_x"); // the holder is gone now
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  test("two stores in one process cannot both open a session", async () => {
    const { dir } = await sessionWith(1);
    const first = await createJsonlStore(dir).open("sess_x");
    const error = await storeError(createJsonlStore(dir).open("sess_x"));
    expect(error.code).toBe("locked");
    expect(error.message).toContain("already open in this process");
    await first.journal.close();
  });
});

describe("jsonl store crash safety", () => {
  test("after SIGKILL mid-stream every acknowledged entry is there, with no damage but a torn last line", async () => {
    const dir = freshDir();
    const helper = join(import.meta.dir, "..", "helpers", "store-writer.ts");
    const child = Bun.spawn([process.execPath, helper, dir, "sess_crash"], { stdout: "pipe", stderr: "pipe" });
    let acknowledged = -1;
    const decoder = new TextDecoder();
    let buffered = "";
    const reader = child.stdout.getReader();
    const deadline = Date.now() + 3000;
    while (acknowledged < 40 && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) if (line.startsWith("ack ")) acknowledged = Number(line.slice(4));
    }
    child.kill("SIGKILL");
    await child.exited;
    reader.releaseLock();
    if (acknowledged < 0) throw new Error(`writer acknowledged nothing: ${await new Response(child.stderr).text()}`);
    expect(child.signalCode).toBe("SIGKILL");

    const store = createJsonlStore(dir);
    const session = await store.read("sess_crash");
    expect(session.warnings).toEqual([]);
    const numbers = session.entries.map((e) => e.n as number);
    expect(numbers.length).toBeGreaterThanOrEqual(acknowledged + 1);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, n) => n));

    // The dead writer's lock is stale: the session can be resumed and appended to cleanly.
    const resumed = await store.open("sess_crash");
    await resumed.journal.append({ type: "message", n: -1 }, { sync: true });
    await resumed.journal.close();
    const after = await store.read("sess_crash");
    expect(after.entries.at(-1)?.n).toBe(-1);
    expect(after.entries.length).toBe(numbers.length + 1);
  });
});
