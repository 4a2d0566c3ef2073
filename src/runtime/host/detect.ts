/**
 * Which JavaScript runtime this process runs on. Everything that differs
 * between Node, Bun and Deno is decided here and in the files next to it.
 * @module
 */

export type RuntimeName = "node" | "bun" | "deno";

const globals = globalThis as { Bun?: unknown; Deno?: unknown };

/** The runtime executing this code. Bun and Deno also expose Node globals, so test them first. */
export function detectRuntime(): RuntimeName {
  if (typeof globals.Bun !== "undefined") return "bun";
  if (typeof globals.Deno !== "undefined") return "deno";
  return "node";
}

export const runtimeName: RuntimeName = detectRuntime();
