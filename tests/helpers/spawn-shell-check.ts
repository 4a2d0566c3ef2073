/**
 * Exercises `spawnShell` on whichever runtime runs this file (node via a
 * bundle, bun, deno) and prints one JSON line with what it saw:
 * merged output, exit status, and whether killTree reached a background child.
 */
import { spawnShell } from "../../src/runtime/process/spawn-shell.ts";

const cwd = process.argv[2] ?? "/";
const decoder = new TextDecoder();
const read = async (output: AsyncIterable<Uint8Array>) => {
  let text = "";
  for await (const chunk of output) text += decoder.decode(chunk, { stream: true });
  return text;
};

const first = await spawnShell({ command: "echo out; echo err >&2; pwd; exit 7", cwd });
const text = await read(first.output);
const exit = await first.exited;

const second = await spawnShell({ command: "sleep 30 & echo $!; wait", cwd });
const iterator = second.output[Symbol.asyncIterator]();
const firstChunk = await iterator.next();
const childPid = Number(decoder.decode(firstChunk.value).trim());
second.killTree("SIGTERM");
const killed = await second.exited;
await new Promise((resolve) => setTimeout(resolve, 50));
let childGone = false;
try {
  process.kill(childPid, 0);
  // A killed child can linger as a zombie until init reaps it; that counts as gone.
  const { execFileSync } = await import("node:child_process");
  childGone = execFileSync("ps", ["-o", "stat=", "-p", String(childPid)]).toString().trim().startsWith("Z");
} catch {
  childGone = true;
}
console.log(JSON.stringify({ text, exit, killed, childPid, childGone }));
