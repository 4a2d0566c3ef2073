/**
 * `GET /v1/sessions` of `agent serve` with a list index: what a running
 * server lists follows the files as they are added, appended to and deleted,
 * with and without `cwd`, page by page.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { bearer, startServe, TOKEN } from "../helpers/serve-process.ts";
import { cwdSlug } from "../../src/store/cwd-slug.ts";

function writeSession(sandbox: Sandbox, id: string, cwd: string, title: string, age: number): string {
  const folder = join(sandbox.home, "sessions", cwdSlug(cwd));
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${id}.jsonl`);
  const header = { type: "session", version: 1, id, cwd, additionalDirectories: [], createdAt: "2025-01-01T00:00:00.000Z" };
  writeFileSync(file, `${JSON.stringify(header)}\n${JSON.stringify({ type: "title", at: "2025-01-01T00:00:01.000Z", title })}\n`);
  const mtime = new Date(Date.now() - age * 1000);
  utimesSync(file, mtime, mtime);
  return file;
}

describe.each(RUNTIMES)("GET /v1/sessions with a list index on %s", (runtime) => {
  test("follows the files between calls, with and without cwd, page by page", async () => {
    const sandbox = makeSandbox();
    const server = await startServe(runtime, sandbox);
    try {
      const other = join(sandbox.root, "other");
      const files = Array.from({ length: 55 }, (_, i) => writeSession(sandbox, `sess_a${String(i).padStart(2, "0")}`, sandbox.project, `a${i}`, 100 + i));
      writeSession(sandbox, "sess_b0", other, "b0", 50);
      const listAll = async (cwd?: string) => {
        const titles: Record<string, string | null> = {};
        let cursor: string | undefined;
        do {
          const query = new URLSearchParams({ ...(cwd ? { cwd } : {}), ...(cursor ? { cursor } : {}) });
          const response = await fetch(`${server.url}/v1/sessions?${query}`, { headers: bearer(TOKEN) });
          expect(response.status).toBe(200);
          const page = (await response.json()) as { sessions: Array<{ id: string; title: string | null }>; nextCursor?: string };
          for (const s of page.sessions) {
            expect(titles).not.toHaveProperty(s.id);
            titles[s.id] = s.title;
          }
          cursor = page.nextCursor;
        } while (cursor);
        return titles;
      };
      const expected: Record<string, string> = Object.fromEntries(files.map((_, i) => [`sess_a${String(i).padStart(2, "0")}`, `a${i}`]));
      expect(await listAll(sandbox.project)).toEqual(expected);
      expect(existsSync(join(sandbox.home, "sessions", cwdSlug(sandbox.project), ".list-index.json"))).toBe(true);
      expect(existsSync(join(sandbox.home, "sessions", cwdSlug(other), ".list-index.json"))).toBe(false);

      appendFileSync(files[7]!, `${JSON.stringify({ type: "title", at: "2025-01-02T00:00:00.000Z", title: "appended" })}\n`);
      expected.sess_a07 = "appended";
      unlinkSync(files[8]!);
      delete expected.sess_a08;
      writeSession(sandbox, "sess_a99", sandbox.project, "added", 10);
      expected.sess_a99 = "added";
      expect(await listAll(sandbox.project)).toEqual(expected);
      expect(await listAll()).toEqual({ ...expected, sess_b0: "b0" });
    } finally {
      await server.stop();
      sandbox.cleanup();
    }
  }, 60_000);
});
