/**
 * The socket filter on disk, for bubblewrap to read through a file
 * descriptor (`--seccomp 3`, opened by the shell in front of it: the same
 * command line works when the editor's terminal runs it). It lives in the
 * process's private temp folder, which every sandbox mounts read-only, and
 * its bytes are checked before every command: what a confined command
 * cannot change, the next one reads as written.
 * @module
 */
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { processTempDirectory } from "../process/process-temp.ts";
import { unixSocketFilter } from "./socket-filter.ts";

let expected: Uint8Array | undefined;

/** The folder holding the filter (to be mounted read-only in the sandbox) and the filter's path. */
export async function socketFilterFile(): Promise<{ folder: string; file: string }> {
  expected ??= unixSocketFilter();
  const folder = path.join(processTempDirectory(), "sandbox");
  const file = path.join(folder, "socket-filter.bpf");
  const current = await fs.promises.readFile(file).catch(() => undefined);
  if (current && Buffer.compare(current, expected) === 0) return { folder, file };
  await fs.promises.mkdir(folder, { recursive: true, mode: 0o700 });
  // Written aside and renamed: bubblewrap never reads half a filter.
  const aside = `${file}.${process.pid}.tmp`;
  await fs.promises.rm(aside, { force: true });
  await fs.promises.writeFile(aside, expected, { mode: 0o400, flag: "wx" });
  await fs.promises.rename(aside, file);
  return { folder, file };
}
