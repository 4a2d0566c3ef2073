/**
 * A session writer for the crash test: creates a session in the store at
 * argv[2] and appends entries with `{ sync: true }` forever, printing
 * `ack <n>` after each acknowledged append. The test kills it with SIGKILL.
 */
import { createJsonlStore } from "../../src/store/jsonl-store.ts";

const [dir, id] = process.argv.slice(2);
if (!dir || !id) throw new Error("usage: store-writer.ts <dir> <sessionId>");
const journal = await createJsonlStore(dir).create({ id, cwd: "/crash", additionalDirectories: [] });
console.log("ready");
// Big enough that a kill can land in the middle of a write.
const padding = "p".repeat(4096);
for (let n = 0; ; n++) {
  await journal.append({ type: "message", n, padding }, { sync: true });
  console.log(`ack ${n}`);
}
