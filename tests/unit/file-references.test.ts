/**
 * `@path` in a command file: a file inside the session's roots is embedded
 * as the model reads a linked resource; anything a repository could aim it
 * at outside them — an absolute path, `~`, a link out, /proc, a FIFO, a huge
 * or binary file — becomes a note saying why, with nothing of the file; a
 * name that leads nowhere (`@types/node`, an e-mail address) stays text.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveAreas } from "../../src/runtime/files/confined-file.ts";
import { embedReferences, fileReferences } from "../../src/sessions/setup/file-references.ts";
import { makeSandbox, type Sandbox } from "../helpers/agent-process.ts";

const OUTSIDE = "OUTSIDE-MARKER-e19d";

describe("@path references", () => {
  let sandbox: Sandbox;
  let roots: string[];
  const embed = (text: string) => embedReferences(text, sandbox.project, roots, 4 * 1024 * 1024);

  beforeEach(async () => {
    sandbox = makeSandbox();
    sandbox.write("outside/secret.txt", OUTSIDE);
    sandbox.write("project/src/app.ts", "export const app = 1;\n");
    roots = await resolveAreas([sandbox.project]);
  });
  afterEach(() => sandbox.cleanup());

  test("references are found after white space or a parenthesis, without trailing punctuation, each once", () => {
    expect(fileReferences("Review @src/app.ts, then (@docs/a.md). Mail me@example.com; see @src/app.ts.")).toEqual(["src/app.ts", "docs/a.md"]);
    expect(fileReferences("@first at the start\nand `@not-in-code`")).toEqual(["first"]);
  });

  test("a file in the roots is embedded like a linked resource; a name that leads nowhere is left as text", async () => {
    const parts = await embed("Look at @src/app.ts and @types/node and @team");
    expect(parts).toEqual([{ type: "text", text: `<resource uri="file://${join(sandbox.project, "src", "app.ts")}">\nexport const app = 1;\n\n</resource>` }]);
  });

  test("what leads outside the roots, or is not a regular UTF-8 file of at most 2 MiB, becomes a note", async () => {
    symlinkSync(join(sandbox.root, "outside", "secret.txt"), join(sandbox.project, "link.txt"));
    symlinkSync("/proc/self/environ", join(sandbox.project, "environ"));
    execFileSync("mkfifo", [join(sandbox.project, "fifo")]);
    writeFileSync(join(sandbox.project, "big.txt"), "");
    truncateSync(join(sandbox.project, "big.txt"), 3 * 1024 * 1024);
    writeFileSync(join(sandbox.project, "binary.bin"), new Uint8Array([0xff, 0xfe, 0x00, 0x80]));
    const outsidePath = join(sandbox.root, "outside", "secret.txt");
    const parts = await embed(`@link.txt @environ @fifo @big.txt @binary.bin @${outsidePath} @~/.ssh/id_rsa-that-is-not-there @src`);
    const texts = parts.map((p) => p.text);
    const url = (path: string) => `file://${path}`;
    expect(texts).toEqual([
      `[linked resource ${url(join(sandbox.project, "link.txt"))}: it leads outside the session's directories, so it was not read]`,
      `[linked resource ${url(join(sandbox.project, "environ"))}: it leads outside the session's directories, so it was not read]`,
      `[linked resource ${url(join(sandbox.project, "fifo"))}: it is not a regular file (a FIFO), so it was not read]`,
      `[linked resource ${url(join(sandbox.project, "big.txt"))}: larger than 2 MiB, so it was not embedded; use the read tool with an offset]`,
      `[linked resource ${url(join(sandbox.project, "binary.bin"))}: not UTF-8 text, so it was not embedded]`,
      `[linked resource ${url(outsidePath)}: it leads outside the session's directories, so it was not read]`,
      `[linked resource ${url(join(sandbox.project, "src"))}: it is not a regular file (a folder), so it was not read]`,
    ]);
    expect(JSON.stringify(parts)).not.toContain(OUTSIDE);
  });

  test("at most 20 references are looked at", async () => {
    for (let i = 0; i < 25; i++) sandbox.write(`project/f${i}.md`, `file ${i}\n`);
    const parts = await embed(Array.from({ length: 25 }, (_, i) => `@f${i}.md`).join(" "));
    expect(parts.filter((p) => p.text.startsWith("<resource"))).toHaveLength(20);
    expect(parts.at(-1)!.text).toBe("[5 more @ references were not looked at: a command embeds at most 20 files]");
  });
});
