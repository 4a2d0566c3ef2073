/**
 * A `Workspace` that reaches the editor for what it advertised: reading and
 * writing files through `fs/read_text_file` / `fs/write_text_file` (so
 * unsaved buffers are seen and the editor records the change), and running
 * commands in its terminals. Everything else stays on the local disk. A
 * method the client did not advertise is never called.
 * @module
 */
import { redact } from "../../runtime/secrets.ts";
import { truncateTail } from "../../tools/truncate.ts";
import type { ExecRequest, ExecResult, Workspace } from "../../tools/types.ts";
import type { EditorFiles } from "../../sessions/checkpoints/restore-files.ts";
import { startInEditorTerminal, terminalRequest } from "./client-background.ts";
import { methods, type AgentContext, type ClientCapabilities } from "../sdk.ts";

/** The files' side the editor offers the agent (see restore-files.ts): reading and writing as it advertised them; undefined when neither. */
export function editorFiles(client: AgentContext, capabilities: ClientCapabilities, sessionId: string): EditorFiles | undefined {
  const readable = capabilities.fs?.readTextFile === true;
  const writable = capabilities.fs?.writeTextFile === true;
  if (!readable && !writable) return undefined;
  return {
    ...(readable ? { read: async (path: string) => (await client.request(methods.client.fs.readTextFile, { sessionId, path })).content } : {}),
    ...(writable ? { write: async (path: string, content: string) => void (await client.request(methods.client.fs.writeTextFile, { sessionId, path, content })) } : {}),
  };
}

export function clientWorkspace(local: Workspace, client: AgentContext, capabilities: ClientCapabilities, sessionId: string): Workspace {
  const readable = capabilities.fs?.readTextFile === true;
  const writable = capabilities.fs?.writeTextFile === true;
  const terminal = capabilities.terminal === true;
  if (!readable && !writable && !terminal) return local;
  return {
    cwd: local.cwd,
    roots: local.roots,
    readFileBytes: (path, maxBytes) => local.readFileBytes(path, maxBytes),
    readTextFile: readable
      ? async (path, signal) => {
          const response = await client.request(methods.client.fs.readTextFile, { sessionId, path }, signal ? { cancellationSignal: signal } : {});
          return response.content;
        }
      : (path, signal) => local.readTextFile(path, signal),
    writeTextFile: writable
      ? async (path, content, signal) => {
          await client.request(methods.client.fs.writeTextFile, { sessionId, path, content }, signal ? { cancellationSignal: signal } : {});
        }
      : (path, content, signal) => local.writeTextFile(path, content, signal),
    exec: terminal ? (request) => execInEditorTerminal(client, sessionId, request) : (request) => local.exec(request),
    ...(terminal
      ? { startBackground: (request) => startInEditorTerminal(client, sessionId, request) }
      : local.startBackground
        ? { startBackground: (request) => local.startBackground!(request) }
        : {}),
  };
}

/** Runs a command in an editor terminal: create, wait (kill on timeout or cancel), read output, always release. */
async function execInEditorTerminal(client: AgentContext, sessionId: string, request: ExecRequest): Promise<ExecResult> {
  const handle = await client.createTerminal(await terminalRequest(sessionId, request.command, request.cwd, request.sandbox));
  request.onTerminal?.(handle.id);
  let timedOut = false;
  let cancelled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const stop = new Promise<"timeout" | "cancel">((resolve) => {
      if (request.timeoutMs !== undefined) timer = setTimeout(() => resolve("timeout"), request.timeoutMs);
      if (request.signal.aborted) resolve("cancel");
      request.signal.addEventListener("abort", () => resolve("cancel"), { once: true });
    });
    const outcome = await Promise.race([handle.waitForExit().then((exit) => ({ exit })), stop]);
    let exit: { exitCode?: number | null; signal?: string | null } | undefined;
    if (outcome === "timeout" || outcome === "cancel") {
      timedOut = outcome === "timeout";
      cancelled = outcome === "cancel";
      await handle.kill().catch(() => undefined);
    } else {
      exit = outcome.exit;
    }
    const output = await handle.currentOutput();
    const tail = truncateTail(visibleOutput(output.output, output.truncated));
    const status = exit ?? output.exitStatus ?? {};
    return {
      exitCode: timedOut || cancelled ? null : (status.exitCode ?? null),
      signal: status.signal ?? null,
      output: tail.content,
      truncated: tail.truncated || output.truncated,
      totalLines: tail.totalLines,
      totalBytes: tail.totalBytes,
      timedOut,
      cancelled,
    };
  } finally {
    clearTimeout(timer);
    await handle.release().catch(() => undefined);
  }
}

/**
 * The editor's output with secrets hidden before it is cut to the tail, so
 * the cut cannot leave half a key that redaction no longer recognises. When
 * the editor dropped the start, the first (partial) line goes too, for the
 * same reason.
 */
function visibleOutput(text: string, truncatedByEditor: boolean): string {
  const newline = truncatedByEditor ? text.indexOf("\n") : -1;
  return redact(newline === -1 ? text : text.slice(newline + 1));
}
