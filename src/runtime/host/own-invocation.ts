/**
 * How this process was started, as a program and its arguments that start
 * the same program again: for clients that run the agent's own command for
 * another purpose (a terminal login). Each runtime tells it differently.
 * @module
 */
import process from "node:process";
import { runtimeName } from "./detect.ts";

/** A program and its arguments. */
export interface Invocation {
  command: string;
  args: string[];
}

/** Where a compiled Bun executable keeps its own code: a virtual path, not a file anyone can run. */
const BUN_EMBEDDED = /^(\/\$bunfs\/|[A-Z]:[\\/]~BUN[\\/])/;

/** Whether this process is a compiled Bun executable (acp-edge itself, not a runtime running a script). */
export function isCompiledExecutable(): boolean {
  if (runtimeName !== "bun") return false;
  const main = (globalThis as { Bun?: { main?: string } }).Bun?.main ?? process.argv[1] ?? "";
  return BUN_EMBEDDED.test(main) || BUN_EMBEDDED.test(process.argv[1] ?? "");
}

/**
 * The runtime (or compiled executable) and the arguments that started this
 * process: the script and the command-line arguments, with the runtime's own
 * flags where a plain re-run would lose them (Deno's permissions).
 */
export function ownInvocation(): Invocation {
  const command = process.execPath;
  const script = process.argv[1] ?? "";
  const cliArgs = process.argv.slice(2);
  if (runtimeName === "bun") {
    if (isCompiledExecutable()) return { command, args: cliArgs };
    return { command, args: [...process.execArgv, script, ...cliArgs] };
  }
  if (runtimeName === "deno") {
    const main = (globalThis as { Deno?: { mainModule?: string } }).Deno?.mainModule ?? "";
    // A local file runs by its path; a remote module (https:, jsr:) by its URL.
    const module = main.startsWith("file:") || main === "" ? script : main;
    return { command, args: ["run", "-A", "--quiet", module, ...cliArgs] };
  }
  return { command, args: [...process.execArgv, script, ...cliArgs] };
}
