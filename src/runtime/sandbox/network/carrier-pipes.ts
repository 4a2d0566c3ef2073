/**
 * The pipes of one confined command's carrier, made so that no socket is
 * opened in the sandbox and the same command line works wherever the
 * command runs (spawned by the agent, or in the editor's terminal, which
 * can be handed no descriptor). Two named pipes in the agent's private
 * folder: the shell in front of bubblewrap (outside the sandbox) opens
 * them as descriptors 4 and 5 (opening waits for the relay's side: the
 * relay runs before the command line is handed out), which bubblewrap passes in and the forwarder
 * takes as its stdin and stdout; on the agent's side a small relay process
 * (`cat`, one each way) joins them to pipes of its own the agent reads and
 * writes as it does any child's. The relay removes the names as soon as
 * both sides hold them open, and the folder is covered in every sandbox.
 * @module
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { started } from "../../process/child-lifecycle.ts";
import { randomHex } from "../../random-hex.ts";
import type { FilteringProxy } from "../proxy/filtering-proxy.ts";
import { serveCarrier } from "./carrier-streams.ts";

/** One command's carrier: the named pipes its sandbox opens, and how to end it early. */
export interface CarrierPipes {
  /** Agent to forwarder: the sandbox reads it as descriptor 4. */
  down: string;
  /** Forwarder to agent: the sandbox writes it as descriptor 5. */
  up: string;
  /** Ends the carrier (its streams, the relay, the names), as the end of the command does by itself. */
  close(): void;
}

/**
 * `sh -c RELAY sh <down> <up>`: makes both pipes (owner only), says so on stderr, then waits for the
 * sandbox's side to open them — opening blocks until it does, in this process, never in the agent —
 * removes the names and relays: its stdin into `down`, `up` onto its stdout.
 */
const RELAY = [
  "umask 077",
  'mkfifo "$1" "$2" || exit 1',
  "echo made >&2",
  'exec 2>/dev/null 5>"$1" 4<"$2" || exit 1',
  'rm -f "$1" "$2"',
  "cat <&4 5>&- &",
  "exec cat >&5 4<&-",
].join("\n");

/** Makes the carrier of one command in `folder` and serves its streams with `proxy` until the command's sandbox ends (then `onEnd`). */
export async function openCarrier(folder: string, proxy: FilteringProxy, onEnd: () => void = () => {}): Promise<CarrierPipes> {
  await fs.promises.mkdir(folder, { recursive: true, mode: 0o700 });
  const name = randomHex(8);
  const down = path.join(folder, `${name}.down`);
  const up = path.join(folder, `${name}.up`);
  // A process group of its own, so that closing the carrier ends both of its `cat`s.
  const relay = spawn("/bin/sh", ["-c", RELAY, "sh", down, up], { detached: true, stdio: ["pipe", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });
  await started(relay);
  relay.on("error", () => {});
  relay.stdin!.on("error", () => {});
  let ended = false;
  const close = () => {
    if (ended) return;
    ended = true;
    onEnd();
    carrier.close("the carrier was closed");
    try {
      process.kill(-relay.pid!, "SIGKILL");
    } catch {
      // already gone
    }
    fs.rmSync(down, { force: true });
    fs.rmSync(up, { force: true });
  };
  const made = await new Promise<boolean>((resolve) => {
    relay.stderr!.once("data", () => resolve(true));
    relay.once("exit", () => resolve(false));
  });
  relay.stderr!.resume();
  const carrier = serveCarrier(relay.stdout!, (frame) => relay.stdin!.write(frame), (stream) => proxy.serve(stream));
  if (!made) {
    close();
    throw new Error("the named pipes of the sandbox's network could not be made (mkfifo)");
  }
  // The sandbox gone (its side of `up` closed) or the carrier broken: everything goes.
  void carrier.done.then(close);
  // The relay must not keep the agent alive; the end of the agent ends the sandboxes and so the relays.
  relay.unref();
  for (const pipe of [relay.stdin, relay.stdout, relay.stderr] as unknown as Array<{ unref?: () => void }>) pipe.unref?.();
  return { down, up, close };
}
