/**
 * An NDJSON ACP client for the benches that drive several agents side by side
 * (acp-edge and its peers): requests by id with a deadline, the agent's own
 * requests answered (permission requests by `answerPermission`, anything else
 * declined), notifications handed to listeners with their arrival time, and
 * the agent's whole process group killed by `stop`.
 */
import { spawn } from "node:child_process";

/** Spawns `contender` ({ command, args }) in its own process group and speaks NDJSON over its stdio. */
export function startPeerAgent(contender, { cwd, env, answerPermission }) {
  const started = performance.now();
  const child = spawn(contender.command, contender.args, { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-2000)));
  const pending = new Map();
  const listeners = new Set();
  let buffer = "";
  let nextId = 1;
  const answer = (message) => {
    const outcome = message.method === "session/request_permission" ? answerPermission(message.params) : undefined;
    const reply = outcome ? { result: { outcome } } : { error: { code: -32601, message: "not supported" } };
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: message.id, ...reply }) + "\n");
  };
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (!line) continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      const at = performance.now();
      if (message.method && message.id !== undefined) answer(message);
      else if (message.method) for (const listener of listeners) listener(message, at);
      else if (pending.has(message.id)) {
        const { resolve, reject } = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) reject(new Error(`${message.error.code}: ${message.error.message}`));
        else resolve({ result: message.result, at });
      }
    }
  });
  const exited = new Promise((r) => child.on("exit", (code, signal) => r({ code, signal })));
  const request = (method, params, timeoutMs = 60_000) =>
    new Promise((done, fail) => {
      const id = nextId++;
      const timer = setTimeout(() => fail(new Error(`${method}: no answer in ${timeoutMs / 1000} s`)), timeoutMs);
      pending.set(id, { resolve: (v) => (clearTimeout(timer), done(v)), reject: (e) => (clearTimeout(timer), fail(e)) });
      exited.then(({ code, signal }) => fail(new Error(`${method}: exited (${code ?? signal}) ${stderr.trim().split("\n").at(-1) ?? ""}`)));
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  const stop = () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  };
  return { child, started, request, listeners, stop, stderr: () => stderr };
}
