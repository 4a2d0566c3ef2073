/**
 * Telling, conservatively, that a confined command failed because of the
 * sandbox: it failed, and its output carries an error the sandbox causes —
 * a read-only file system or a refused permission on a path outside the
 * writable folders, or a network that cannot be reached (a host the
 * sandbox's proxy refused among them). The hint lets the
 * model ask to run the command outside the sandbox; it never decides
 * anything itself.
 * @module
 */
import path from "node:path";
import type { SandboxSpec } from "./sandbox-spec.ts";

const FILE_ERRORS = /read-only file system|permission denied|operation not permitted|EROFS|EACCES|EPERM/i;
const NETWORK_ERRORS =
  /network is unreachable|could not resolve host|temporary failure in name resolution|name or service not known|ENETUNREACH|EAI_AGAIN|getaddrinfo|connection refused|ECONNREFUSED|cannot assign requested address|acp-edge sandbox proxy|from proxy after CONNECT|CONNECT tunnel failed/i;
/** Absolute paths named in an error line (quoted or bare). */
const PATHS = /(?:^|[\s'"`‘(:])(\/[^\s'"`’):]*)/g;

/** What blocked the command, when its output shows the sandbox did; undefined otherwise. */
export function sandboxBlock(output: string, spec: SandboxSpec): "files" | "network" | undefined {
  let network = false;
  for (const line of output.split("\n")) {
    if (NETWORK_ERRORS.test(line)) network = true;
    if (FILE_ERRORS.test(line) && namesPathOutside(line, spec.writable)) return "files";
  }
  return network ? "network" : undefined;
}

/** Whether the line names no path at all, or one outside every writable folder. */
function namesPathOutside(line: string, writable: readonly string[]): boolean {
  const paths = [...line.matchAll(PATHS)].map((match) => match[1]!);
  if (paths.length === 0) return true;
  return paths.some((p) => !writable.some((folder) => p === folder || p.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep)));
}
