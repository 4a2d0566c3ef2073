/**
 * What the fuzz runner needs from a transport under test (a stdio agent in
 * one framing, or `agent serve` over WebSocket), and what a finding looks like.
 */
import { readFileSync } from "node:fs";
import { peakMemory } from "../helpers/processes.ts";

/** A broken invariant. `kind` groups findings so shrinking keeps the same one. */
export interface Finding {
  kind: "crashed" | "wedged" | "unanswered" | "extra-answer" | "bad-output" | "memory" | "final-turn" | "exit" | "closed" | "refused" | "leak";
  detail: string;
}

/** Context every input is sent in: placeholders resolve against it. */
export interface SendContext {
  /** The latest session id the agent announced on this connection (or a placeholder one). */
  sessionId: string;
  /** The project directory used as a session cwd. */
  cwd: string;
}

/** A running agent under fuzz. */
export interface FuzzTarget<Input> {
  /** Sends one input (its answers are tracked from here on). */
  send(input: Input, index: number): Promise<void>;
  /** Waits until the agent has answered every request it owes; reports what is wrong. */
  checkpoint(timeoutMs: number): Promise<Finding | undefined>;
  /** A normal faux turn on a clean connection: initialize → session/new → prompt → end_turn. */
  finalTurn(timeoutMs: number): Promise<Finding | undefined>;
  /** Ends input (EOF / SIGTERM) and checks the exit. */
  stop(timeoutMs: number): Promise<Finding | undefined>;
  /** Current resident memory of the agent, in bytes. */
  rss(): number;
  /** Peak resident memory of the agent so far, in bytes. */
  peakRss(): number;
  /** Kills the agent without checks (after a finding). */
  kill(): void;
}

/** Replaces `@@SID@@` and `@@CWD@@` in message text (the cwd JSON-escaped, as it sits inside a string). */
export function fillPlaceholders(text: string, context: SendContext): string {
  if (!text.includes("@@")) return text;
  return text.replaceAll("@@SID@@", context.sessionId).replaceAll("@@CWD@@", JSON.stringify(context.cwd).slice(1, -1));
}

/** Encodes message segments as bytes, with placeholders filled. */
export function encodeSegments(segments: (string | Uint8Array)[], context: SendContext): Uint8Array {
  const parts = segments.map((s) => (typeof s === "string" ? new TextEncoder().encode(fillPlaceholders(s, context)) : s));
  const total = parts.reduce((n, p) => n + p.byteLength, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** Resident memory of a process (Linux `VmRSS`), in bytes; 0 when it is gone. */
export function currentRss(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** Peak resident memory of a process, in bytes; 0 when it is gone. */
export function peakRss(pid: number): number {
  try {
    return peakMemory(pid);
  } catch {
    return 0;
  }
}

/** The line of a crashed agent's stderr that says most: the last one naming an error, else the last one. */
export function stderrGist(stderr: string): string {
  const lines = stderr.split("\n").map((l) => l.trim()).filter(Boolean);
  const named = lines.filter((l) => /error|panic|uncaught|unhandled/i.test(l) && !/^at /.test(l));
  return (named.at(-1) ?? lines.at(-1) ?? "(nothing on stderr)").slice(0, 300);
}
