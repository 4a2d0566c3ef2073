/**
 * How a background command's news reads to the model: its id on a line of
 * its own, whether it runs or how it ended, a note for dropped output, then
 * the output itself. Shared by `bash`, `bash_output` and `bash_stop`.
 * @module
 */
import { formatSize } from "../truncate.ts";
import type { BackgroundExit, BackgroundRead, ToolResult } from "../types.ts";

/** The status line of a read: still running, or how it ended. */
export function statusLine(read: BackgroundRead, stopped = false): string {
  const exit = read.exit;
  if (!exit) return stopped ? "status: stopped (how it ended is not known)" : "status: running";
  return `status: ${howItEnded(exit)}`;
}

/** `exited with code N` or `ended by signal S`: the model's status line and the session's listing say it alike. */
export function howItEnded(exit: BackgroundExit): string {
  return exit.signal ? `ended by signal ${exit.signal}` : `exited with code ${exit.code ?? "unknown"}`;
}

/** The result for one read of background command `id`, after `lead` lines. */
export function backgroundResult(id: string, read: BackgroundRead, lead: string[] = [], options: { terminalId?: string; stopped?: boolean } = {}): ToolResult {
  const { terminalId, stopped = false } = options;
  const lines = [...lead, `id: ${id}`, statusLine(read, stopped)];
  if (read.droppedBytes > 0) lines.push(`[${formatSize(read.droppedBytes)} of older output dropped]`);
  lines.push(read.output !== "" ? `output:\n${read.output}` : "output: (nothing new)");
  return {
    content: [{ type: "text", text: lines.join("\n") }],
    details: {
      id,
      running: read.exit === undefined && !stopped,
      // Only an ended command has an exit code (the engine reports an execute call's end from it).
      ...(read.exit ? { exitCode: read.exit.code, signal: read.exit.signal } : {}),
      droppedBytes: read.droppedBytes,
      ...(terminalId !== undefined ? { terminalId } : {}),
    },
  };
}
