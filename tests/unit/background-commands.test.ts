/**
 * A session's background commands through their public functions, on this
 * machine: unread output stays bounded and says what it dropped, a stop
 * ends the whole tree, the count is bounded, and closing ends everything.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BackgroundCommands, MAX_BACKGROUND_COMMANDS } from "../../src/tools/shell/background-commands.ts";
import { createLocalWorkspace } from "../../src/tools/local-workspace.ts";
import { DEFAULT_MAX_BYTES } from "../../src/tools/truncate.ts";
import { ToolError, type BackgroundProcess, type Workspace } from "../../src/tools/types.ts";
import { UnreadOutput } from "../../src/tools/shell/unread-output.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { processesWithEnv } from "../helpers/processes.ts";

const dir = mkdtempSync(join(tmpdir(), "acp-edge-background-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const never = new AbortController().signal;

describe("UnreadOutput", () => {
  test("keeps at most its limit, counts what it dropped, and hands out the model's budget", () => {
    const unread = new UnreadOutput();
    for (let i = 0; i < 100; i++) unread.push(`${"x".repeat(9_999)}\n`);
    const taken = unread.take();
    expect(new TextEncoder().encode(taken.output).byteLength).toBeLessThanOrEqual(DEFAULT_MAX_BYTES);
    expect(taken.droppedBytes + new TextEncoder().encode(taken.output).byteLength + 1).toBeGreaterThanOrEqual(1_000_000);
    expect(unread.pending).toBe(false);
    expect(unread.take()).toEqual({ output: "", droppedBytes: 0 });
  });

  test("text pushed with the bytes it was decoded from: what is dropped is counted as written, plain text to the byte", () => {
    const unread = new UnreadOutput(10);
    // Three bytes written for each replacement character; plain text as its UTF-8 size.
    unread.push("\ufffd".repeat(8), 8);
    unread.push("é".repeat(6), 12);
    const taken = unread.take();
    // The binary piece went whole (8 written bytes); the plain text fits.
    expect(taken).toEqual({ output: "é".repeat(6), droppedBytes: 8 });
    unread.push("abcdefgh", 8);
    unread.push("ijkl", 4);
    expect(unread.take()).toEqual({ output: "cdefghijkl", droppedBytes: 2 });
  });

  test("never keeps half of a surrogate pair", () => {
    const unread = new UnreadOutput(3);
    unread.push("a😀b");
    unread.push("😀");
    expect(unread.take().output).toBe("b😀");
  });
});

describe("BackgroundCommands on this machine", () => {
  test("a command that never stops printing: bounded reads with a dropped-output note; a stop ends its tree", async () => {
    const workspace = await createLocalWorkspace(dir, []);
    const commands = new BackgroundCommands();
    const marker = `BACKGROUND_UNIT_MARK=${crypto.randomUUID()}`;
    // 2 MB arrive unread before the flag appears (a pipe holds far less than the 256 KiB kept), then it prints on forever.
    const flag = join(dir, `printed-${crypto.randomUUID()}`);
    const { id } = await commands.start(workspace, `export ${marker}; (sleep 300 &) ; yes chatter | head -c 2000000; touch ${flag}; exec yes chatter`);
    await waitFor(() => existsSync(flag), 10_000, "the first 2 MB printed");
    const read = await commands.read(id, 1000, never);
    expect(read.exit).toBeUndefined();
    expect(new TextEncoder().encode(read.output).byteLength).toBeLessThanOrEqual(DEFAULT_MAX_BYTES);
    expect(read.droppedBytes).toBeGreaterThan(0);
    // The subshell's sleep carries the marker once it has exec'd.
    await waitFor(() => processesWithEnv(marker).length >= 2, 10_000, "yes and the sleep it left");
    const stopped = await commands.stop(id);
    expect(stopped.exit?.signal).toBe("SIGTERM");
    expect(processesWithEnv(marker)).toEqual([]);
    expect(commands.list()).toEqual([]);
  }, 30_000);

  test("an ended command is reported once with its exit code, then forgotten; what it left running ends with it", async () => {
    const workspace = await createLocalWorkspace(dir, []);
    const commands = new BackgroundCommands();
    const marker = `BACKGROUND_UNIT_MARK=${crypto.randomUUID()}`;
    const { id } = await commands.start(workspace, `export ${marker}; sleep 301 & touch ${join(dir, "left")}; while [ ! -e ${join(dir, "end")} ]; do sleep 0.05; done; echo bye; exit 3`);
    await Bun.write(join(dir, "end"), "");
    let read = await commands.read(id, 10_000, never);
    while (!read.exit) read = await commands.read(id, 10_000, never);
    expect(read.exit).toEqual({ code: 3, signal: null });
    expect(processesWithEnv(marker)).toEqual([]);
    await expect(commands.read(id, 0, never)).rejects.toBeInstanceOf(ToolError);
  }, 30_000);

  /** Every read of `command` until its end: the outputs handed out and the bytes said dropped. */
  async function readToEnd(command: string): Promise<{ outputs: string[]; dropped: number }> {
    const workspace = await createLocalWorkspace(dir, []);
    const commands = new BackgroundCommands();
    const { id, first } = await commands.start(workspace, command);
    const outputs = [first.output];
    let dropped = first.droppedBytes;
    let read = first;
    while (!read.exit) {
      read = await commands.read(id, 10_000, never);
      outputs.push(read.output);
      dropped += read.droppedBytes;
    }
    expect(read.exit).toEqual({ code: 0, signal: null });
    return { outputs, dropped };
  }

  test("binary output is counted as the command wrote it: N bytes of 0xFF are exactly the dropped bytes plus the characters shown", async () => {
    const written = 3_000_000;
    // Each 0xFF byte is invalid UTF-8 and decodes to one replacement character (3 bytes of UTF-8).
    const { outputs, dropped } = await readToEnd(`head -c ${written} /dev/zero | tr '\\000' '\\377'`);
    const shown = outputs.join("");
    expect(shown.replaceAll("\ufffd", "")).toBe("");
    expect(dropped + shown.length).toBe(written);
    expect(dropped).toBeGreaterThan(0);
  }, 30_000);

  test("random binary output: the dropped bytes never exceed what was written, and miss at most what was shown", async () => {
    const written = 4_000_000;
    const { outputs, dropped } = await readToEnd(`head -c ${written} /dev/urandom`);
    expect(dropped).toBeLessThanOrEqual(written);
    // Whatever was shown stood for no more bytes than its UTF-8 form.
    const shownBytes = outputs.reduce((sum, output) => sum + new TextEncoder().encode(output).byteLength, 0);
    expect(dropped).toBeGreaterThanOrEqual(written - shownBytes);
  }, 30_000);

  test(`at most ${MAX_BACKGROUND_COMMANDS} at once; closing ends them all and refuses new ones`, async () => {
    const workspace = await createLocalWorkspace(dir, []);
    const commands = new BackgroundCommands();
    const marker = `BACKGROUND_UNIT_MARK=${crypto.randomUUID()}`;
    for (let i = 0; i < MAX_BACKGROUND_COMMANDS; i++) await commands.start(workspace, `export ${marker}; exec sleep 30${i}`);
    await expect(commands.start(workspace, "true")).rejects.toThrow(`Already ${MAX_BACKGROUND_COMMANDS} background commands`);
    expect(processesWithEnv(marker)).toHaveLength(MAX_BACKGROUND_COMMANDS);
    await commands.closeAll();
    expect(processesWithEnv(marker)).toEqual([]);
    await expect(commands.start(workspace, "true")).rejects.toThrow("closing");
  }, 30_000);
});

describe("BackgroundCommands ids and failed starts", () => {
  /** A workspace whose commands are in-memory processes: what start does around them is under test, not the process. */
  function fakeWorkspace(process: () => BackgroundProcess): Workspace {
    return { cwd: dir, startBackground: async () => process() } as unknown as Workspace;
  }

  test("ids are unique across sessions and not a sequence: a reopened session's bg1 never names a new command", async () => {
    const workspace = await createLocalWorkspace(dir, []);
    const ids = new Set<string>();
    for (let session = 0; session < 3; session++) {
      const commands = new BackgroundCommands();
      for (let i = 0; i < 2; i++) ids.add((await commands.start(workspace, "exec sleep 30")).id);
      await commands.closeAll();
    }
    expect(ids.size).toBe(6);
    for (const id of ids) expect(id).toMatch(/^bg-[0-9a-f]{8}$/);
    expect(ids.has("bg1")).toBe(false);
  }, 30_000);

  test("a start whose first read fails stops the command and forgets it: nothing runs under an id the model never saw", async () => {
    let stopped = 0;
    const failing: BackgroundProcess = {
      read: async () => {
        throw new ToolError("The editor terminal of this command cannot be reached");
      },
      changed: async () => undefined,
      stop: async () => {
        stopped += 1;
        return { output: "", droppedBytes: 0 };
      },
    };
    const commands = new BackgroundCommands();
    await expect(commands.start(fakeWorkspace(() => failing), "serve")).rejects.toThrow("cannot be reached");
    expect(stopped).toBe(1);
    expect(commands.list()).toEqual([]);
  });

  test("a start whose wait for first output fails stops the command too", async () => {
    let stopped = 0;
    const failing: BackgroundProcess = {
      read: async () => ({ output: "", droppedBytes: 0 }),
      changed: async () => {
        throw new ToolError("no answer");
      },
      stop: async () => {
        stopped += 1;
        return { output: "", droppedBytes: 0 };
      },
    };
    const commands = new BackgroundCommands();
    await expect(commands.start(fakeWorkspace(() => failing), "serve")).rejects.toThrow("no answer");
    expect(stopped).toBe(1);
    expect(commands.list()).toEqual([]);
  });
});
