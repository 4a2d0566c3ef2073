/**
 * A minimal NDJSON ACP client for the benches that time one agent process:
 * requests by id, answers timed on arrival, and `session/update` lines only
 * looked at, never parsed, so the client's own cost stays out of the figures.
 */
import { spawn } from "node:child_process";

/**
 * Spawns `target` ({ name, command, args }) and speaks NDJSON over its stdio.
 * `onChunk` runs on each `agent_message_chunk` line.
 */
export function connectNdjson(target, { cwd, env, onChunk = () => {} }) {
  const child = spawn(target.command, target.args, { cwd, env, stdio: ["pipe", "pipe", "inherit"] });
  const pending = new Map();
  let buffer = "";
  let nextId = 1;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    let cut;
    while ((cut = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 1);
      if (line.includes('"session/update"')) {
        if (line.includes('"agent_message_chunk"')) onChunk();
        continue;
      }
      const message = JSON.parse(line);
      const waiter = pending.get(message.id);
      if (!waiter) continue;
      pending.delete(message.id);
      if (message.error) waiter.reject(new Error(`${target.name}: ${JSON.stringify(message.error)}`));
      else waiter.resolve({ result: message.result, at: performance.now() });
    }
  });
  return {
    /** Sends a request; `sent` is when its line was handed to stdin, `answered` its result and arrival time. */
    request(method, params) {
      const id = nextId++;
      const answered = new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
      const sent = performance.now();
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      return { sent, answered };
    },
    close: () =>
      new Promise((done) => {
        child.on("exit", done);
        child.stdin.end();
      }),
  };
}
