/**
 * `.gitignore` rules as gitignore(5) and git read them, each case named and
 * checked against git itself (`git check-ignore --no-index` in a real
 * repository, through the walk): blank lines, comments, escapes, trailing
 * spaces, negation, directory-only rules, anchoring, `**` forms, brackets,
 * a file under an excluded folder, nested ignore files, `.git/info/exclude`,
 * case folding, byte-wise matching of non-ASCII names, and the quirks of
 * git's own matcher that the walk follows.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeMismatch, runCase, type GitignoreCase } from "../fuzz/gitignore-fuzz.ts";

let scratch: string;
beforeAll(() => void (scratch = mkdtempSync(join(realpathSync(tmpdir()), "acp-gitignore-rules-"))));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let index = 0;
/** The walk over `entries` (folders end with `/`) with these ignore files must keep exactly what git keeps. */
async function agreesWithGit(ignoreFiles: Record<string, string>, entries: string[], ignoreCase = false) {
  const files = Object.keys(ignoreFiles).filter((p) => !p.startsWith(".git/"));
  const c: GitignoreCase = { index: index++, entries: [...new Set([...entries, ...files])].sort(), ignoreFiles, ignoreCase };
  const stats = { paths: 0 };
  const mismatch = await runCase(c, scratch, stats);
  expect(mismatch ? describeMismatch(0, mismatch) : "agrees").toBe("agrees");
  expect(stats.paths).toBe(c.entries.length);
}

const tree = ["a/", "a/b/", "a/b/c.log", "a/x/", "a/x/y/", "a/x/y/b", "ab", "b/", "b/a", "build/", "build/out.js", "c.log", "keep.log", "#x", "!x", "sp ", "sp", "é", "ée", "x]", "A", "B.TXT"];

describe("lines", () => {
  test("blank lines, comments, escaped # and !, CRLF and a byte order mark", async () => {
    await agreesWithGit({ ".gitignore": "\uFEFF# comment\r\n\r\n\\#x\r\n\\!x\r\n  # not a comment\r\n" }, tree);
  });

  test("trailing spaces are dropped unless escaped; a trailing lone backslash keeps them", async () => {
    await agreesWithGit({ ".gitignore": "sp   \nab\\ \nc.log \\\n" }, tree);
    await agreesWithGit({ ".gitignore": "sp\\ \n" }, tree);
  });

  test("the last matching rule decides; ! re-includes; a file in an excluded folder stays out", async () => {
    await agreesWithGit({ ".gitignore": "*.log\n!keep.log\nbuild/\n!build/out.js\n" }, tree);
  });
});

describe("anchoring and directories", () => {
  test("a trailing / matches folders only; a / at the start or in the middle anchors", async () => {
    await agreesWithGit({ ".gitignore": "b/\n/a/x\nc.log/\n" }, tree);
    await agreesWithGit({ ".gitignore": "x/y\n/b\n" }, tree);
  });

  test("** forms: leading, middle, trailing, alone, and runs of more stars", async () => {
    await agreesWithGit({ ".gitignore": "**/b\n" }, tree);
    await agreesWithGit({ ".gitignore": "a/**/b\n" }, tree);
    await agreesWithGit({ ".gitignore": "a/**\n!a/x/**\n" }, tree);
    await agreesWithGit({ ".gitignore": "a/***/b\n" }, tree);
    await agreesWithGit({ ".gitignore": "*/**/**/**\n" }, tree);
    await agreesWithGit({ ".gitignore": "**\n!a/\n" }, tree);
  });

  test("git's own matcher: a ** right after the leading literal part is a globstar (a**/b matches ab and a/x/y/b)", async () => {
    await agreesWithGit({ ".gitignore": "a**/b\n" }, tree);
    await agreesWithGit({ ".gitignore": "a/x**\n" }, tree);
  });

  test("nested ignore files and .git/info/exclude, the deeper file winning", async () => {
    await agreesWithGit({ ".git/info/exclude": "*.js\n", ".gitignore": "!out.js\n*.log\n", "a/.gitignore": "!*.log\nb\n" }, tree);
  });
});

describe("wildcards and brackets", () => {
  test("? and brackets: ranges, negation, ] first, POSIX classes, malformed brackets matching nothing", async () => {
    await agreesWithGit({ ".gitignore": "[]x]]\n[!a-c]\n[[:upper:]].TXT\n[abc\n[[:nope:]]\n?b\n" }, tree);
  });

  test("non-ASCII names are matched byte by byte, as git does", async () => {
    await agreesWithGit({ ".gitignore": "??\n" }, tree);
    await agreesWithGit({ ".gitignore": "é?\n" }, tree);
  });

  test("picomatch's own syntax means nothing: braces, extglobs, parentheses", async () => {
    await agreesWithGit({ ".gitignore": "{a,b}\n+(a)\n@(b)\n(a|b)\n" }, [...tree, "{a,b}", "+(a)", "(a|b)"]);
  });

  test("case folding (core.ignorecase), including git's: an upper-case letter alone in brackets matches nothing", async () => {
    await agreesWithGit({ ".gitignore": "a\nb.txt\n[A]\n[[:lower:]]\n" }, tree, true);
  });
});
