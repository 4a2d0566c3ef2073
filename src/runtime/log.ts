/**
 * Diagnostics go to stderr only: stdout carries the protocol. Every line is
 * passed through `redact` so secrets never reach a log.
 * @module
 */
import process from "node:process";
import { redact } from "./secrets.ts";

export type LogLevel = "error" | "warn" | "info" | "debug";

const ranks: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };
let threshold: LogLevel = "warn";

export function setLogLevel(level: LogLevel): void {
  threshold = level;
}

export function logLevel(): LogLevel {
  return threshold;
}

function emit(level: LogLevel, message: string, detail?: unknown): void {
  if (ranks[level] > ranks[threshold]) return;
  let line = `acp-edge ${level}: ${message}`;
  if (detail !== undefined) line += ` ${describe(detail)}`;
  process.stderr.write(`${redact(line)}\n`);
}

function describe(detail: unknown): string {
  if (detail instanceof Error) return threshold === "debug" && detail.stack ? detail.stack : detail.message;
  if (typeof detail === "string") return detail;
  try {
    return JSON.stringify(detail);
  } catch {
    return String(detail);
  }
}

export const log = {
  error: (message: string, detail?: unknown) => emit("error", message, detail),
  warn: (message: string, detail?: unknown) => emit("warn", message, detail),
  info: (message: string, detail?: unknown) => emit("info", message, detail),
  debug: (message: string, detail?: unknown) => emit("debug", message, detail),
};

/** Writes a line to stderr regardless of the log level (banners, fatal errors). */
export function printError(text: string): void {
  process.stderr.write(`${redact(text)}\n`);
}

/**
 * Writes text to stdout and settles once it is handed to the system: a command that exits right after a
 * long listing must wait for it, or a pipe reader gets only the part written before the exit.
 */
export function printOutFully(text: string): Promise<void> {
  return new Promise((resolve) => process.stdout.write(redact(text), () => resolve()));
}

/** Writes text to stdout. Only for commands that do not speak the protocol on stdout. */
export function printOut(text: string): void {
  process.stdout.write(redact(text));
}
