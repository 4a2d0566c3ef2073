/**
 * The way out of a sandbox whose commands may reach allowed hosts. The
 * sandbox keeps its own network namespace (nothing but its loopback) and
 * its socket filter; the shell in front of bubblewrap opens the command's
 * carrier (carrier-pipes.ts) as descriptors 4 and 5, and inside, after the
 * environment's secrets are gone, a small script starts the forwarder
 * (forwarder.ts) on them. Once the forwarder prints its loopback port, the
 * command's environment names `http://127.0.0.1:<port>` in every proxy
 * variable and `NO_PROXY` is cleared; the script closes 4 and 5 and
 * becomes the command, which so never holds the carrier's descriptors.
 * @module
 */
import type { CarrierPipes } from "./carrier-pipes.ts";

/** What a sandbox needs to reach the session's filtering proxy. */
export interface SandboxNetwork {
  /** The folder of the carriers' named pipes: covered in every sandbox. */
  carriers: string;
  /** The forwarder's environment entry, another, its program and its argument (four words, see `forwarderProgram`). */
  forwarder: readonly string[];
  /** Makes the carrier of one command. */
  openCarrier(): Promise<CarrierPipes>;
}

/**
 * Run as `sh -c SCRIPT sh <4 forwarder words> <the rest of the command line>`, with the carrier on
 * descriptors 4 and 5. The forwarder runs from `/` (no project file of the runtime's applies to it);
 * its stdin and stdout are the carrier, its stderr the pipe the port is read from; the command
 * substitution ends when the pipe's reader has that line, without waiting for the forwarder.
 */
const START_FORWARDER = [
  `port=$(cd / && { env "$1" "$2" "$3" "$4" <&4 2>&1 >&5 4<&- 5>&- & } | { read -r line && echo "$line"; })`,
  "shift 4",
  "exec 4<&- 5>&-",
  "case $port in",
  `''|*[!0-9]*) echo "acp-edge: the sandbox's network forwarder did not start; no host is reachable from this command" >&2 ;;`,
  "*) proxy=http://127.0.0.1:$port",
  "export HTTP_PROXY=$proxy HTTPS_PROXY=$proxy http_proxy=$proxy https_proxy=$proxy ALL_PROXY=$proxy all_proxy=$proxy",
  "unset NO_PROXY no_proxy ;;",
  "esac",
  'exec "$@"',
].join("\n");

/** What runs inside the sandbox before the shell and its command when the command may reach allowed hosts. */
export function networkPrelude(network: SandboxNetwork): string[] {
  return ["/bin/sh", "-c", START_FORWARDER, "sh", ...network.forwarder];
}
