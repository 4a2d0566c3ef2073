/**
 * The bubblewrap command line that confines one command: the whole file
 * system read-only, the writable folders bound back writable, the secrets
 * covered (an empty read-only folder over a folder, an empty file over a
 * file), no network (a namespace of its own: not even loopback), its own
 * process ids (nothing outside is visible or reachable), a user namespace
 * of its own with every capability dropped (a command the agent runs as
 * root keeps none: no remounting, no kernel modules) and no nested user
 * namespaces where bubblewrap can forbid them, no Unix-domain sockets (a
 * seccomp filter: socket-filter.ts), and an end tied to the agent's child
 * (`--die-with-parent`).
 * @module
 */
import fs from "node:fs";
import type { SandboxSpec } from "./sandbox-spec.ts";
import { socketFilterFile } from "./socket-filter-file.ts";

/** Options every confined command gets; the probe runs with the same ones. */
export const CONFINEMENT = [
  "--unshare-user",
  "--cap-drop",
  "ALL",
  "--unshare-net",
  "--unshare-pid",
  "--unshare-ipc",
  "--unshare-uts",
  "--unshare-cgroup-try",
  "--die-with-parent",
  // A session of its own: no terminal to push keystrokes into (TIOCSTI), in the editor's terminal too.
  "--new-session",
] as const;
/** Forbids user namespaces inside the sandbox (bubblewrap 0.8 and later; older ones run without it). */
export const NO_NESTED_USER_NAMESPACES = "--disable-userns";

/**
 * A shell in front of bubblewrap that opens the socket filter as descriptor 3 for `--seccomp 3`:
 * `sh -c FILTER_OPENER <filter file> <bwrap> <options…>`. One command line for every way a command
 * runs, the editor's terminal included, which can pass no descriptor of its own.
 */
export const FILTER_OPENER = 'exec 3<"$0" || exit 126; exec "$@"';

/** `[shell, …, program, ...options, "--"]`: put the command after it. */
export async function bwrapArguments(spec: SandboxSpec): Promise<string[]> {
  const filter = await socketFilterFile();
  const args: string[] = ["/bin/sh", "-c", FILTER_OPENER, filter.file, spec.program, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  for (const folder of spec.writable) {
    const real = await existingRealPath(folder);
    if (real) args.push("--bind", real, real);
  }
  // After the writable binds: a secret inside a writable folder is covered too.
  for (const secret of spec.hidden) {
    const real = await existingRealPath(secret);
    if (!real) continue;
    const info = await fs.promises.stat(real).catch(() => undefined);
    if (!info) continue;
    if (info.isDirectory()) args.push("--tmpfs", real, "--remount-ro", real);
    else args.push("--ro-bind", "/dev/null", real);
  }
  // Read-only inside even where the temp dir is writable: no command changes the filter the next one gets.
  args.push("--ro-bind", filter.folder, filter.folder, "--seccomp", "3");
  args.push(...CONFINEMENT, ...spec.extraOptions, "--");
  return args;
}

/** The symlink-free location of `path`, or undefined when it does not exist (nothing to bind or cover). */
async function existingRealPath(path: string): Promise<string | undefined> {
  return await fs.promises.realpath(path).catch(() => undefined);
}
