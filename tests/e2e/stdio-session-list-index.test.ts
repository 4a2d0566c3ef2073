/**
 * `session/list` over stdio with a list index: sessions added, appended to,
 * deleted and hand-edited between calls of one running agent; index files
 * damaged or from a newer release between restarts (on another runtime);
 * a `cwd` filter; cursors while sessions are added.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { startAgent, type RunningAgent } from "../helpers/session-agent.ts";
import { cwdSlug } from "../../src/store/cwd-slug.ts";

const { methods } = acp;
const other = (runtime: (typeof RUNTIMES)[number]) => RUNTIMES[(RUNTIMES.indexOf(runtime) + 1) % RUNTIMES.length]!;
const INDEX = ".list-index.json";

/** A session file as the agent writes it, with a settled mtime `age` seconds ago. */
function writeSession(sandbox: Sandbox, id: string, cwd: string, title: string, age: number): string {
  const folder = join(sandbox.home, "sessions", cwdSlug(cwd));
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${id}.jsonl`);
  const lines = [
    { type: "session", version: 1, id, cwd, additionalDirectories: [], createdAt: "2025-01-01T00:00:00.000Z" },
    { type: "message", at: "2025-01-01T00:00:01.000Z", messageId: "m1", message: { role: "user", content: [{ type: "text", text: `prompt ${id}` }] } },
    { type: "title", at: "2025-01-01T00:00:02.000Z", title },
  ];
  writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
  const mtime = new Date(Date.now() - age * 1000);
  utimesSync(file, mtime, mtime);
  return file;
}

async function listAll(agent: RunningAgent, params: { cwd?: string } = {}): Promise<Record<string, string | null | undefined>> {
  const out: Record<string, string | null | undefined> = {};
  let cursor: string | undefined;
  do {
    const page = await agent.client.agent.request(methods.agent.session.list, { ...params, ...(cursor ? { cursor } : {}) });
    for (const s of page.sessions) {
      expect(out).not.toHaveProperty(s.sessionId);
      out[s.sessionId] = s.title;
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out;
}

describe.each(RUNTIMES)("session/list with a list index on %s", (runtime) => {
  test("files changed between calls and index files damaged between restarts: the list always says what the files say", async () => {
    const sandbox = makeSandbox();
    try {
      const project = sandbox.project;
      const elsewhere = join(sandbox.root, "elsewhere");
      const expected: Record<string, string> = {};
      const files: Record<string, string> = {};
      for (let i = 0; i < 60; i++) {
        const id = `sess_p${String(i).padStart(2, "0")}`;
        files[id] = writeSession(sandbox, id, project, `project ${i}`, 1000 + i * 10);
        expected[id] = `project ${i}`;
      }
      // Made-up ids of one length apart from the agent's own (random ids of 21 characters could start alike).
      const isElsewhere = (id: string) => /^sess_e\d$/.test(id);
      for (let i = 0; i < 5; i++) {
        const id = `sess_e${i}`;
        files[id] = writeSession(sandbox, id, elsewhere, `elsewhere ${i}`, 1005 + i * 10);
        expected[id] = `elsewhere ${i}`;
      }
      // Past the 3 s in which a just-written file is read again on every call: the cache answers.
      await Bun.sleep(3200);

      const first = await startAgent(runtime, sandbox);
      expect(await listAll(first)).toEqual(expected);
      const projectFolder = join(sandbox.home, "sessions", cwdSlug(project));
      expect(JSON.parse(readFileSync(join(projectFolder, INDEX), "utf8"))).toMatchObject({ version: 1 });

      // Between two calls of the same process: appended, deleted, added, hand-edited (same size, mtime put back), damaged.
      appendFileSync(files.sess_p03!, `${JSON.stringify({ type: "title", at: "2025-01-02T00:00:00.000Z", title: "renamed by hand" })}\n`);
      expected.sess_p03 = "renamed by hand";
      unlinkSync(files.sess_p04!);
      delete expected.sess_p04;
      writeSession(sandbox, "sess_new", project, "added by hand", 500);
      expected.sess_new = "added by hand";
      const before = statSync(files.sess_p05!);
      writeFileSync(files.sess_p05!, readFileSync(files.sess_p05!, "utf8").replace('"project 5"', '"project X"'));
      utimesSync(files.sess_p05!, before.atime, before.mtime);
      expected.sess_p05 = "project X";
      writeFileSync(files.sess_p06!, "no header\n");
      delete expected.sess_p06;
      expect(await listAll(first)).toEqual(expected);

      // A session made through the agent is listed with its title.
      const { sessionId } = await first.newSession();
      await first.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "/name made here" }] });
      expected[sessionId] = "made here";
      expect(await listAll(first)).toEqual(expected);
      expect(await listAll(first, { cwd: elsewhere })).toEqual(Object.fromEntries(Object.entries(expected).filter(([id]) => isElsewhere(id))));
      expect(await first.stop()).toBe(0);

      // Between restarts: one index truncated, the other from a newer release; and a file changed meanwhile.
      const projectIndex = join(projectFolder, INDEX);
      writeFileSync(projectIndex, readFileSync(projectIndex, "utf8").slice(0, 200));
      const newer = JSON.stringify({ format: "acp-edge-list-index", version: 99, entries: [] });
      writeFileSync(join(sandbox.home, "sessions", cwdSlug(elsewhere), INDEX), newer);
      appendFileSync(files.sess_e1!, `${JSON.stringify({ type: "title", at: "2025-01-02T00:00:00.000Z", title: "elsewhere renamed" })}\n`);
      expected.sess_e1 = "elsewhere renamed";

      const second = await startAgent(other(runtime), sandbox);
      expect(await listAll(second)).toEqual(expected);
      // Rewritten whole: every file of the folder, the damaged one (sess_p06) included as not listable.
      expect(JSON.parse(readFileSync(projectIndex, "utf8")).entries.length).toBe(Object.keys(expected).length - 5 + 1);
      expect(readFileSync(join(sandbox.home, "sessions", cwdSlug(elsewhere), INDEX), "utf8")).toBe(newer);

      // Sessions added while paging: the stored ones are each listed once.
      const seen: string[] = [];
      let cursor: string | undefined;
      let added = 0;
      do {
        const page = await second.client.agent.request(methods.agent.session.list, { cwd: project, ...(cursor ? { cursor } : {}) });
        seen.push(...page.sessions.map((s) => s.sessionId));
        cursor = page.nextCursor ?? undefined;
        writeSession(sandbox, `sess_late${added++}`, project, "late", 0);
        await second.newSession();
      } while (cursor);
      expect(added).toBe(2);
      const stored = Object.keys(expected).filter((id) => !isElsewhere(id));
      expect(seen.sort()).toEqual(stored.sort());
      expect(await second.stop()).toBe(0);
      expect(existsSync(projectIndex)).toBe(true);
    } finally {
      sandbox.cleanup();
    }
  }, 60_000);
});
