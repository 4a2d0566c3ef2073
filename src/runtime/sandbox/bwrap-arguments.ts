/**
 * The bubblewrap command line that confines one command: the whole file
 * system read-only, the writable folders bound back writable, the secrets
 * covered (an empty read-only folder over a folder, an empty file over a
 * file), no network (a namespace of its own with only its own loopback;
 * with allowed hosts, a carrier to the agent's filtering proxy: see
 * network/sandbox-network.ts), its own
 * process ids (nothing outside is visible or reachable), a user namespace
 * of its own with every capability dropped (a command the agent runs as
 * root keeps none: no remounting, no kernel modules) and no nested user
 * namespaces where bubblewrap can forbid them, no Unix-domain sockets (a
 * seccomp filter: socket-filter.ts), and an end tied to the agent's child
 * (`--die-with-parent`).
 * @module
 */
import fs from "node:fs";
import nodePath from "node:path";
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
/**
 * With allowed hosts, the same shell also opens the command's carrier (its two named pipes: the one
 * to read, the one to write, each met by the agent's relay) as descriptors 4 and 5, which bubblewrap
 * passes in: `sh -c CARRIER_OPENER <filter file> <down> <up> <bwrap> <options…>`. Opened one way each,
 * so the forwarder reads an end when the relay goes, and stops.
 */
export const CARRIER_OPENER = 'exec 3<"$0" 4<"$1" 5>"$2" || exit 126; shift 2; exec "$@"';

/** `[shell, …, program, ...options, "--"]`: put the command after it; with a carrier, its pipes are opened in front. */
export async function bwrapArguments(spec: SandboxSpec, carrier?: { down: string; up: string }): Promise<string[]> {
  const filter = await socketFilterFile();
  return [
    "/bin/sh", "-c", ...(carrier ? [CARRIER_OPENER, filter.file, carrier.down, carrier.up] : [FILTER_OPENER, filter.file]),
    // The filter's folder read-only inside, and pinned where it lies in the writable temp dir: no command
    // changes or moves the filter the next one gets.
    spec.program, ...(await mountArguments({ ...spec, readOnly: [...(spec.readOnly ?? []), filter.folder] })),
    "--seccomp", "3",
    ...CONFINEMENT, ...spec.extraOptions, "--",
  ];
}

/**
 * The file system the command sees, in an order that matters (a later mount covers an earlier):
 * the whole root read-only; the writable folders; every folder between a writable folder and a
 * protected or hidden path inside it bound onto itself — a mount point cannot be renamed or
 * removed (EBUSY), so no command can move a protected path out of its place for the next command
 * to find uncovered; the protected paths read-only; the hidden ones covered.
 */
async function mountArguments(spec: SandboxSpec): Promise<string[]> {
  const args: string[] = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  const writable = (await Promise.all(spec.writable.map(existingRealPath))).filter((real): real is string => real !== undefined);
  for (const real of writable) args.push("--bind", real, real);
  const readOnly = await existingPaths(spec.readOnly ?? []);
  const found = await existingPaths(spec.hidden);
  // Inside a covered folder there is nothing left to cover (and no place to mount on in its empty, read-only stand-in).
  const hidden = found.filter(({ real }) => !found.some((other) => other.directory && real.startsWith(`${other.real}/`)));
  const pinned = new Set<string>();
  for (const { real } of [...readOnly, ...hidden]) for (const folder of foldersBetween(writable, real)) pinned.add(folder);
  for (const folder of [...pinned].sort()) args.push("--bind", folder, folder);
  for (const { real } of readOnly) args.push("--ro-bind", real, real);
  for (const { real, directory } of hidden) {
    if (directory) args.push("--tmpfs", real, "--remount-ro", real);
    else args.push("--ro-bind", "/dev/null", real);
  }
  return args;
}

/** The existing paths among `paths`, symlink-free, and whether each is a folder. */
async function existingPaths(paths: readonly string[]): Promise<{ real: string; directory: boolean }[]> {
  const found: { real: string; directory: boolean }[] = [];
  for (const path of paths) {
    const real = await existingRealPath(path);
    const info = real === undefined ? undefined : await fs.promises.stat(real).catch(() => undefined);
    if (real !== undefined && info) found.push({ real, directory: info.isDirectory() });
  }
  return found;
}

/** The folders strictly between each writable folder that contains `target` and `target` itself. */
function foldersBetween(writable: readonly string[], target: string): string[] {
  const between: string[] = [];
  for (const root of writable) {
    if (!target.startsWith(root === "/" ? "/" : `${root}/`)) continue;
    for (let folder = nodePath.dirname(target); folder.length > root.length; folder = nodePath.dirname(folder)) between.push(folder);
  }
  return between;
}

/** The symlink-free location of `path`, or undefined when it does not exist (nothing to bind or cover). */
async function existingRealPath(path: string): Promise<string | undefined> {
  return await fs.promises.realpath(path).catch(() => undefined);
}
