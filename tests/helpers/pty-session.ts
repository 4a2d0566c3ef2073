/**
 * A command run in a real pseudo-terminal, typed at like a person would: the
 * way an editor runs a terminal login. The terminal comes from util-linux's
 * `script`, which every Debian system has (its package, bsdutils, is
 * Essential), where python3 is not installed by default. `script -E never`
 * echoes nothing itself, so whatever the output shows of typed text was
 * echoed by the program's terminal.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cleanEnv } from "./agent-process.ts";

export interface PtySession {
  child: ChildProcess;
  /** Everything the terminal showed so far (stdout and stderr of the program, as the terminal echoed them). */
  output(): string;
  /** Resolves once the output matches `pattern` after `from` (default: anywhere); rejects when the program exits first or after `timeoutMs`. */
  waitFor(pattern: string | RegExp, timeoutMs?: number, from?: number): Promise<void>;
  /** Types text; `\r` is the Enter key. */
  type(text: string | Uint8Array): void;
  /** Ends the keyboard input (the terminal then sees end of file). */
  endInput(): void;
  exited: Promise<number | null>;
}

/** Quotes one argument for `sh -c`. */
function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Starts `command args` in a pseudo-terminal; `env` as for `spawnAgent` (no credentials of the developer's shell). */
export function startInPty(command: string, args: string[], options: { env?: Record<string, string | undefined>; cwd?: string } = {}): PtySession {
  const line = [command, ...args].map(shellQuote).join(" ");
  const child = spawn("script", ["-q", "-e", "-E", "never", "-c", line, "/dev/null"], {
    cwd: options.cwd,
    env: { ...cleanEnv(options.env), SHELL: "/bin/sh" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
    notify();
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
    notify();
  });
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.on("close", (code) => {
      exitCode = code;
      notify();
      resolve(code);
    }),
  );
  return {
    child,
    output: () => output,
    waitFor(pattern, timeoutMs = 30_000, from = 0) {
      const matches = () => (typeof pattern === "string" ? output.indexOf(pattern, from) >= 0 : pattern.test(output.slice(from)));
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`timed out waiting for ${String(pattern)}; the terminal showed:\n${output}`)), timeoutMs);
        const check = () => {
          if (matches()) done();
          else if (exitCode !== undefined) done(new Error(`the program exited (${exitCode}) before showing ${String(pattern)}:\n${output}`));
        };
        const done = (error?: Error) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (error) reject(error);
          else resolve();
        };
        listeners.add(check);
        check();
      });
    },
    type: (text) => void child.stdin!.write(text),
    endInput: () => void child.stdin!.end(),
    exited,
  };
}
