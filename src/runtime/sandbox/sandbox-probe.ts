/**
 * Whether this machine can confine commands, found out once per process by
 * running an empty command with the very options a real one gets: a missing
 * program and a kernel or container that forbids namespaces both show up
 * here, not on the first real command.
 * @module
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { CONFINEMENT, FILTER_OPENER, NO_NESTED_USER_NAMESPACES } from "./bwrap-arguments.ts";
import { socketFilterFile } from "./socket-filter-file.ts";

/** The confining program, or what is missing for one (a sentence for the user). */
export type SandboxAvailability = { available: true; program: string; extraOptions: readonly string[] } | { available: false; missing: string };

/** How long the probe may take before the sandbox counts as unusable. */
const PROBE_TIMEOUT_MS = 10_000;

let probed: Promise<SandboxAvailability> | undefined;

/** The availability on this machine (probed on the first call, then remembered). */
export function sandboxAvailability(): Promise<SandboxAvailability> {
  return (probed ??= probe());
}

async function probe(): Promise<SandboxAvailability> {
  if (process.platform !== "linux") {
    return { available: false, missing: `a sandbox for ${process.platform} (acp-edge confines commands with bubblewrap on Linux only)` };
  }
  const program = findOnPath("bwrap");
  if (!program) return { available: false, missing: "bubblewrap (the `bwrap` program: install the `bubblewrap` package)" };
  // Nested user namespaces are forbidden where this bubblewrap can; an older one confines without that.
  const strict = await runProbe(program, [NO_NESTED_USER_NAMESPACES]);
  if (strict === undefined) return { available: true, program, extraOptions: [NO_NESTED_USER_NAMESPACES] };
  const failure = strict.includes(NO_NESTED_USER_NAMESPACES) ? await runProbe(program, []) : strict;
  if (failure !== undefined) return { available: false, missing: `a working bubblewrap: ${program} cannot create a sandbox here (${failure}); user namespaces may be disabled in this kernel or container` };
  return { available: true, program, extraOptions: [] };
}

/** Undefined when an empty command ran confined; else the first line bubblewrap printed. */
async function runProbe(program: string, extraOptions: readonly string[]): Promise<string | undefined> {
  // With the socket filter, as every command gets it: a kernel without seccomp has no sandbox to offer.
  const filter = await socketFilterFile();
  return await new Promise((resolve) => {
    let errors = "";
    const options = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--seccomp", "3", ...CONFINEMENT, ...extraOptions, "--", "/bin/sh", "-c", ":"];
    const child = spawn("/bin/sh", ["-c", FILTER_OPENER, filter.file, program, ...options], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), PROBE_TIMEOUT_MS);
    child.stderr?.on("data", (chunk: Uint8Array) => {
      if (errors.length < 1000) errors += new TextDecoder().decode(chunk);
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve(error.message);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(undefined);
      else resolve(errors.trim().split("\n")[0] || (signal ? `ended by ${signal}` : `exit code ${code}`));
    });
  });
}

/** The absolute path of an executable `name` on `PATH`, if any. */
function findOnPath(name: string): string | undefined {
  for (const folder of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!path.isAbsolute(folder)) continue;
    const candidate = path.join(folder, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // Not here; try the next folder.
    }
  }
  return undefined;
}
