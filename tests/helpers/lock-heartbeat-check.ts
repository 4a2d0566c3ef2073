/**
 * Holds a session lock on whichever runtime runs this file, ages the lock
 * file, and prints one JSON line saying whether the heartbeat refreshed it.
 * It never releases the lock: the process must still exit on its own (the
 * heartbeat timer does not hold it open).
 */
import { readdirSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { createJsonlStore } from "../../src/store/jsonl-store.ts";

const dir = process.argv[2] ?? ".";
await createJsonlStore(dir, { lock: { heartbeatMs: 50, staleAfterMs: 200 } }).create({ id: "sess_hb", cwd: "/hb", additionalDirectories: [] });
const lock = join(dir, readdirSync(dir)[0] ?? "", "sess_hb.jsonl.lock");
utimesSync(lock, new Date(0), new Date(0));
const deadline = Date.now() + 5000;
while (statSync(lock).mtimeMs < Date.now() - 60_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
console.log(JSON.stringify({ refreshed: statSync(lock).mtimeMs > Date.now() - 60_000 }));
