/**
 * Wording for what went wrong with an MCP server: error messages cut to a
 * readable length, HTTP statuses spelled out, exits and malformed answers
 * described. Callers pass the results through `redact`.
 * @module
 */
import { redactSecrets } from "../../runtime/secrets.ts";
import type { ProcessTransport } from "./stdio-transport.ts";

/** `1500` → `1.5s`. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))}s`;
}

/** Longest error detail repeated in a notice or a tool error (a server may answer with a whole HTML page). */
const MAX_DETAIL_LENGTH = 300;

/** An error as one short line. */
export function messageOf(error: unknown): string {
  let text = error instanceof Error ? error.message : String(error);
  const status = (error as { code?: unknown } | undefined)?.code;
  // The SDK's HTTP errors carry the status as `code`, JSON-RPC errors a negative code.
  if (typeof status === "number" && status >= 100 && status < 600) {
    text = `HTTP ${status}: ${text.replace(/^(Streamable HTTP|SSE) error: /, "")}`;
  }
  // Hidden before the cut, which could otherwise leave part of a secret that redaction no longer recognises.
  text = redactSecrets(text).replace(/\s+/g, " ").trim();
  return text.length > MAX_DETAIL_LENGTH ? `${text.slice(0, MAX_DETAIL_LENGTH - 1)}…` : text;
}

/** How a stdio server ended, e.g. `exit code 1`. */
export function describeExit(transport: ProcessTransport | undefined): string | undefined {
  const exit = transport?.exit;
  if (!exit) return undefined;
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}

/** A zod validation error (the SDK's result schemas reject a malformed result with one). */
export function schemaIssues(error: unknown): string | undefined {
  const issues = (error as { issues?: unknown }).issues;
  if (!Array.isArray(issues)) return undefined;
  return issues
    .slice(0, 3)
    .map((issue: { path?: unknown[]; message?: string }) => `${issue.path?.length ? issue.path.join(".") : "result"}: ${issue.message ?? "invalid"}`)
    .join("; ");
}
