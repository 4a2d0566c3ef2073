/**
 * Context-file stamps: a file changed after its read began is read again at
 * the next check, however long the read took. (Edits, rewrites that restore
 * size and mtime, and swapped links between turns: tests/e2e/stdio-context-files.test.ts.)
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { contextPlaces, loadContextFiles, stampContext } from "../../src/engine/context-files.ts";
import { pathsChanged } from "../../src/runtime/files/path-stamps.ts";
import { resolveAreas } from "../../src/runtime/files/confined-file.ts";
import { userInstructionFolders } from "../../src/sessions/setup/setup-places.ts";
import { makeSandbox, type Sandbox } from "../helpers/agent-process.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("context stamps", () => {
  let sandbox: Sandbox;
  beforeEach(() => {
    sandbox = makeSandbox();
    sandbox.write("project/AGENTS.md", "Rule one.\n");
  });
  afterEach(() => sandbox.cleanup());

  /** Reads and stamps as a session does. */
  async function readAndStamp(readAt?: number) {
    const places = await contextPlaces(userInstructionFolders(sandbox.home, {}), await resolveAreas([sandbox.project]));
    const { files } = await loadContextFiles(places);
    expect(files.map((f) => f.content)).toEqual(["Rule two.\n"]);
    return stampContext(places, files, readAt);
  }

  test("a file changed after its read began is read again at the next check", async () => {
    const readAt = Date.now();
    await sleep(5);
    writeFileSync(join(sandbox.project, "AGENTS.md"), "Rule two.\n");
    // Past the short margin after the write: only the read's start can tell the change came during the read.
    await sleep(150);
    const stamp = await readAndStamp(readAt);
    expect(await pathsChanged(stamp)).toBe(true);
  });

});
