/**
 * A lister for the list index race test: lists all sessions of the store at
 * argv[2] until the file argv[3] exists (then once more), alternating between
 * one long-lived store and a new store each time, and checks every listing:
 * the `existing` pre-existing sessions `sess_p<n>` are always there, nothing
 * is listed twice, and every title is one the writer or the test wrote (or none yet,
 * for a session being created).
 * Prints `ok <listings>` or the first violation, then exits.
 */
import { existsSync } from "node:fs";
import { createJsonlStore } from "../../src/store/jsonl-store.ts";
import type { SessionStore } from "../../src/store/types.ts";

const [dir, stopFile, existingText, racyText] = process.argv.slice(2);
if (!dir || !stopFile || !existingText || !racyText) throw new Error("usage: list-index-lister.ts <dir> <stop-file> <existing> <racy-ms>");
const existing = Number(existingText);
const settings = { listIndex: { racyMs: Number(racyText) } };
const warm = createJsonlStore(dir, settings);

/** One page holding everything: a session appended to while paging moves ahead of the cursor (docs/storage.md). */
async function listAll(store: SessionStore) {
  const page = await store.list({ limit: 100_000 });
  if (page.nextCursor) throw new Error("expected one page");
  return page.sessions;
}

function violation(sessions: Awaited<ReturnType<typeof listAll>>): string | undefined {
  const ids = sessions.map((s) => s.id);
  if (new Set(ids).size !== ids.length) return `listed twice: ${ids.join(",")}`;
  for (let n = 0; n < existing; n++) if (!ids.includes(`sess_p${n}`)) return `sess_p${n} missing`;
  for (const s of sessions) {
    const match = /^sess_([pw])(\d+)$/.exec(s.id);
    if (!match) return `unexpected session ${s.id}`;
    const allowed = match[1] === "p" ? [`p${match[2]}`, `updated ${match[2]}`] : ["", `w${match[2]}`, `prompt w${match[2]}`];
    if (!allowed.includes(s.title ?? "")) return `${s.id} titled ${JSON.stringify(s.title)}`;
  }
  return undefined;
}

let listings = 0;
for (let last = false; ; ) {
  last = existsSync(stopFile);
  const problem = violation(await listAll(listings % 2 === 0 ? warm : createJsonlStore(dir, settings)));
  listings++;
  if (problem) {
    console.log(`violation after ${listings} listings: ${problem}`);
    process.exit(1);
  }
  if (last) break;
}
console.log(`ok ${listings}`);
