/**
 * The watchdog that ends a background command when the agent dies, however
 * it dies (SIGKILL included): a small `sh` in a session and process group of
 * its own — out of the command's reach by `kill 0` or `kill -- -$$` — that
 * reads a pipe only the agent writes. End of file on it means the agent is
 * gone: it sends SIGTERM (and SIGCONT) to the command's process group and to
 * every process whose environment carries the command's tree marker (Linux,
 * through /proc), then SIGKILL to the same after the grace. The agent
 * dismisses it (SIGKILL) once the command's tree is ended, so it never
 * signals a group id that was given to someone else.
 * @module
 */
import { spawn } from "node:child_process";
import process from "node:process";
import { started } from "./child-lifecycle.ts";

/**
 * `$1`: the command's process group; `$2`: the marker entry (`NAME=value`). `marked SIGNAL` signals
 * every process whose environment it may read and that holds the entry: one GNU `grep -z` over all
 * of /proc where there is one, else a loop (a process of another user, or without /proc, is not found).
 */
const WATCHDOG_SCRIPT = `
group="$1"; entry="$2"
if printf 'x\\000' | grep -qzx x 2>/dev/null; then
  marked() {
    grep -lzxF -e "$entry" /proc/[0-9]*/environ 2>/dev/null | while IFS=/ read -r _ _ pid _; do
      [ "$pid" = "$$" ] || kill -s "$1" "$pid" 2>/dev/null
    done
  }
else
  marked() {
    for environ in /proc/[0-9]*/environ; do
      pid=\${environ#/proc/}; pid=\${pid%/environ}
      [ "$pid" = "$$" ] && continue
      if { tr '\\000' '\\n' < "$environ" | grep -qxF -e "$entry"; } 2>/dev/null; then kill -s "$1" "$pid" 2>/dev/null; fi
    done
  }
fi
while read -r _; do :; done
kill -s TERM -- "-$group" 2>/dev/null; kill -s CONT -- "-$group" 2>/dev/null; marked TERM; marked CONT
sleep 2
kill -s KILL -- "-$group" 2>/dev/null; marked KILL
`;

/** A running watchdog. */
export interface AgentWatchdog {
  /** Ends the watchdog without it signalling anything (the command's tree was ended by the agent). */
  dismiss(): void;
}

/** Starts the watchdog of the process group `group` whose processes carry `markerEntry`. */
export async function startAgentWatchdog(group: number, markerEntry: string): Promise<AgentWatchdog> {
  const child = spawn("/bin/sh", ["-c", WATCHDOG_SCRIPT, "sh", String(group), markerEntry], {
    // Its own session and group; no marker in its environment, so no scan of the tree finds it.
    detached: true,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    stdio: ["pipe", "ignore", "ignore"],
  });
  await started(child);
  child.on("error", () => {});
  child.stdin?.on("error", () => {});
  // The watchdog must not keep the agent alive: only the pipe's end (the agent gone) means something.
  child.unref();
  const pipe = child.stdin as unknown as { unref?: () => void } | null;
  if (typeof pipe?.unref === "function") pipe.unref();
  let dismissed = false;
  return {
    dismiss() {
      if (dismissed) return;
      dismissed = true;
      child.kill("SIGKILL");
    },
  };
}
