/**
 * Starts a command whose children leave its process group, prints their
 * pids as one JSON line, then exits without ending them: run on each runtime
 * to check that the agent's exit still takes the whole tree with it.
 */
import { spawnShell } from "../../src/runtime/process/spawn-shell.ts";

const shell = await spawnShell({
  command: "setsid sleep 304 & echo $!; nohup sleep 305 & echo $!; sleep 306",
  cwd: process.argv[2] ?? "/",
});
const decoder = new TextDecoder();
let text = "";
for await (const chunk of shell.output) {
  text += decoder.decode(chunk, { stream: true });
  if (text.split("\n").length > 2) break;
}
console.log(JSON.stringify({ pids: [shell.pid, ...text.trim().split("\n").map(Number)] }));
process.exit(0);
