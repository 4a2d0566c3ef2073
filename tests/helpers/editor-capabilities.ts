/**
 * What a test editor does when an agent delegates to it: real file reads and
 * writes (with an optional "unsaved buffer" overlay) and real terminals
 * running real processes, so delegation is exercised end to end.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import type * as acp from "@agentclientprotocol/sdk";

export interface EditorFs {
  /** Paths whose unsaved buffer differs from the disk. */
  buffers: Map<string, string>;
  reads: string[];
  writes: Array<{ path: string; content: string }>;
}

export function editorFs(): EditorFs {
  return { buffers: new Map(), reads: [], writes: [] };
}

export function readTextFile(fs: EditorFs, params: acp.ReadTextFileRequest): acp.ReadTextFileResponse {
  fs.reads.push(params.path);
  const content = fs.buffers.get(params.path) ?? readFileSync(params.path, "utf8");
  return { content };
}

export function writeTextFile(fs: EditorFs, params: acp.WriteTextFileRequest): acp.WriteTextFileResponse {
  fs.writes.push({ path: params.path, content: params.content });
  writeFileSync(params.path, params.content);
  fs.buffers.delete(params.path);
  return {};
}

interface Terminal {
  child: ChildProcess;
  output: string;
  exit?: { exitCode: number | null; signal: string | null };
  exited: Promise<void>;
}

/** Terminals the test editor runs for the agent. */
export class EditorTerminals {
  readonly #terminals = new Map<string, Terminal>();
  readonly created: acp.CreateTerminalRequest[] = [];
  readonly released: string[] = [];
  #next = 0;

  create(params: acp.CreateTerminalRequest): acp.CreateTerminalResponse {
    this.created.push(params);
    const child = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? undefined, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const terminal: Terminal = { child, output: "", exited: Promise.resolve() };
    const append = (chunk: Buffer) => {
      terminal.output += chunk.toString("utf8");
      const limit = params.outputByteLimit ?? Infinity;
      if (terminal.output.length > limit) terminal.output = terminal.output.slice(terminal.output.length - Number(limit));
    };
    child.stdout!.on("data", append);
    child.stderr!.on("data", append);
    terminal.exited = new Promise((resolve) => child.on("close", (code, signal) => {
      terminal.exit = { exitCode: code, signal };
      resolve();
    }));
    const id = `term_${++this.#next}`;
    this.#terminals.set(id, terminal);
    return { terminalId: id };
  }

  output(params: acp.TerminalOutputRequest): acp.TerminalOutputResponse {
    const t = this.#get(params.terminalId);
    return { output: t.output, truncated: false, ...(t.exit ? { exitStatus: t.exit } : {}) };
  }

  async waitForExit(params: acp.WaitForTerminalExitRequest): Promise<acp.WaitForTerminalExitResponse> {
    const t = this.#get(params.terminalId);
    await t.exited;
    return t.exit ?? {};
  }

  kill(params: acp.KillTerminalRequest): acp.KillTerminalResponse {
    const t = this.#get(params.terminalId);
    try {
      process.kill(-t.child.pid!, "SIGKILL");
    } catch {
      t.child.kill("SIGKILL");
    }
    return {};
  }

  release(params: acp.ReleaseTerminalRequest): acp.ReleaseTerminalResponse {
    const t = this.#get(params.terminalId);
    if (!t.exit) this.kill(params);
    this.#terminals.delete(params.terminalId);
    this.released.push(params.terminalId);
    return {};
  }

  #get(id: string): Terminal {
    const t = this.#terminals.get(id);
    if (!t) throw new Error(`unknown terminal ${id}`);
    return t;
  }
}
