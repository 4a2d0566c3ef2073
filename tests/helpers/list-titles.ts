/**
 * Prints `{id: title}` of every session the JSONL store at argv[2] lists, as
 * JSON, with the list index's default settings.
 */
import { createJsonlStore } from "../../src/store/jsonl-store.ts";

const dir = process.argv[2];
if (!dir) throw new Error("usage: list-titles.ts <dir>");
const page = await createJsonlStore(dir).list({ limit: 100_000 });
console.log(JSON.stringify(Object.fromEntries(page.sessions.map((s) => [s.id, s.title ?? null]))));
