/**
 * Whether this machine can confine commands, found out once per process by
 * running a command with the very options a real one gets: a missing
 * program and a kernel or container that forbids namespaces both show up
 * here, not on the first real command. The program comes only from the
 * system's folders (see trusted-program.ts), and the probe checks that the
 * command really was confined — its shell has a small process id of a new
 * PID namespace and cannot write a file the host can — so a stand-in that
 * merely runs the command passes nothing.
 * @module
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import process from "node:process";
import { CONFINEMENT, FILTER_OPENER, NO_NESTED_USER_NAMESPACES } from "./bwrap-arguments.ts";
import { socketFilterFile } from "./socket-filter-file.ts";
import { trustedProgram } from "./trusted-program.ts";

/** The confining program, or what is missing for one (a sentence for the user). */
export type SandboxAvailability = { available: true; program: string; extraOptions: readonly string[] } | { available: false; missing: string };

/** How long the probe may take before the sandbox counts as unusable. */
const PROBE_TIMEOUT_MS = 10_000;

/** One probe per program named (the system's is named by the empty string). */
const probed = new Map<string, Promise<SandboxAvailability>>();

/** The availability on this machine with the system's bubblewrap or the one `named` in the user's settings (probed on the first call, then remembered). */
export function sandboxAvailability(named?: string): Promise<SandboxAvailability> {
  const key = named ?? "";
  let availability = probed.get(key);
  if (!availability) probed.set(key, (availability = probe(named)));
  return availability;
}

async function probe(named: string | undefined): Promise<SandboxAvailability> {
  if (process.platform !== "linux") {
    return { available: false, missing: `a sandbox for ${process.platform} (acp-edge confines commands with bubblewrap on Linux only)` };
  }
  const trusted = trustedProgram("bwrap", named);
  if (!trusted) return { available: false, missing: "bubblewrap (the `bwrap` program in /usr/bin or /bin: install the `bubblewrap` package)" };
  if ("refused" in trusted) return { available: false, missing: `a bubblewrap only root can change: ${trusted.refused}` };
  const program = trusted.program;
  // Nested user namespaces are forbidden where this bubblewrap can; an older one confines without that.
  const strict = await runProbe(program, [NO_NESTED_USER_NAMESPACES]);
  if (strict === undefined) return { available: true, program, extraOptions: [NO_NESTED_USER_NAMESPACES] };
  const failure = strict.includes(NO_NESTED_USER_NAMESPACES) ? await runProbe(program, []) : strict;
  if (failure !== undefined) return { available: false, missing: `a working bubblewrap: ${program} cannot create a sandbox here (${failure}); user namespaces may be disabled in this kernel or container` };
  return { available: true, program, extraOptions: [] };
}

/**
 * Undefined when a command ran confined; else the first line bubblewrap printed or what gave the
 * confinement away. Inside, the shell prints its process id (1 or 2 in a new PID namespace: the
 * program's own init, then the command) and tries to create a file in the temp dir, which the
 * read-only root forbids.
 */
async function runProbe(program: string, extraOptions: readonly string[]): Promise<string | undefined> {
  // With the socket filter, as every command gets it: a kernel without seccomp has no sandbox to offer.
  const filter = await socketFilterFile();
  const witness = path.join(os.tmpdir(), `acp-edge-sandbox-probe-${randomUUID()}`);
  // A subshell: a failed redirection must not end the probe's shell itself.
  const check = 'echo "pid=$$"; if (echo x > "$1") 2>/dev/null; then echo wrote; fi';
  return await new Promise((resolve) => {
    let errors = "";
    let output = "";
    const options = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--seccomp", "3", ...CONFINEMENT, ...extraOptions, "--", "/bin/sh", "-c", check, "sh", witness];
    const child = spawn("/bin/sh", ["-c", FILTER_OPENER, filter.file, program, ...options], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), PROBE_TIMEOUT_MS);
    child.stdout?.on("data", (chunk: Uint8Array) => {
      if (output.length < 1000) output += new TextDecoder().decode(chunk);
    });
    child.stderr?.on("data", (chunk: Uint8Array) => {
      if (errors.length < 1000) errors += new TextDecoder().decode(chunk);
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve(error.message);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const wrote = fs.existsSync(witness);
      if (wrote) fs.rmSync(witness, { force: true });
      if (code !== 0) resolve(errors.trim().split("\n")[0] || (signal ? `ended by ${signal}` : `exit code ${code}`));
      else if (wrote || output.includes("wrote") || !/^pid=[12]$/m.test(output)) resolve("the command it ran was not confined (it could write outside or saw the machine's processes)");
      else resolve(undefined);
    });
  });
}
