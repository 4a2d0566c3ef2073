/**
 * A session writer for the list index race test: creates `count` sessions
 * (`sess_w<n>`, cwd /shared) through the store, each with the title `w<n>`,
 * and renames every pre-existing session `sess_p<n>` to `updated <n>`,
 * interleaved, then prints `done`.
 */
import { createJsonlStore } from "../../src/store/jsonl-store.ts";

const [dir, countText, existingText] = process.argv.slice(2);
if (!dir || !countText || !existingText) throw new Error("usage: list-index-writer.ts <dir> <count> <existing>");
const store = createJsonlStore(dir);
const count = Number(countText);
const existing = Number(existingText);
const padding = "x".repeat(3000);
for (let n = 0; n < Math.max(count, existing); n++) {
  if (n < count) {
    const journal = await store.create({ id: `sess_w${n}`, cwd: "/shared", additionalDirectories: [] });
    await journal.append({ type: "message", message: { role: "user", content: [{ type: "text", text: `prompt w${n}` }] } });
    await journal.append({ type: "tool_result", output: padding });
    await journal.append({ type: "title", title: `w${n}` });
    await journal.close();
  }
  if (n < existing) {
    const opened = await store.open(`sess_p${n}`);
    await opened.journal.append({ type: "title", title: `updated ${n}` });
    await opened.journal.close();
  }
}
console.log("done");
