/**
 * Differential fuzzing of the walk's `.gitignore` handling against git
 * itself. Each case is a pure function of (seed, index): a small repository
 * (a tree of oddly named files and folders, `.gitignore` files at several
 * levels, `.git/info/exclude`) whose ignore files are random lines —
 * negations, anchors, `**` chains, brackets (ranges, POSIX classes,
 * malformed ones), escapes, trailing spaces, comments, CRLF, a byte order
 * mark, non-ASCII — many of them made from the tree's own paths so that they
 * match something. What the walk yields (from the top, sometimes from a
 * folder below it, with and without case folding) must be exactly what
 * `git check-ignore --no-index` leaves.
 *
 * `bun tests/fuzz/gitignore-fuzz.ts [--seed N] [--count N]` runs a campaign
 * and prints the first mismatch in full; the test file runs one at CI size.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { walkFiles } from "../../src/tools/search/file-walker.ts";
import { Prng } from "./transport-prng.ts";

/** One generated repository. */
export interface GitignoreCase {
  index: number;
  /** Relative POSIX paths; folders end with `/`. */
  entries: string[];
  /** Relative path of each ignore file → its text (`.git/info/exclude` included). */
  ignoreFiles: Record<string, string>;
  ignoreCase: boolean;
  /** Where the second walk starts (a folder git does not ignore), if any. */
  subStart?: string;
}

/** A disagreement between the walk and git. */
export interface GitignoreMismatch {
  case: GitignoreCase;
  start: string;
  onlyWalk: string[];
  onlyGit: string[];
}

const NAME_CHARS: ReadonlyArray<readonly [number, string]> = [
  [10, "a"], [6, "b"], [4, "A"], [3, "B"], [3, "x"], [3, "."], [2, "-"], [2, " "], [2, "é"], [1, "É"], [1, "日"],
  [1, "*"], [1, "["], [1, "]"], [1, "!"], [1, "#"], [1, "\\"], [1, "?"], [1, "\t"], [1, "\r"], [1, "1"], [1, ":"], [1, "^"],
];

function randomName(rng: Prng): string {
  for (;;) {
    let name = "";
    const length = rng.weighted([[4, 1], [4, 2], [2, 3], [1, 5]] as const);
    for (let i = 0; i < length; i++) name += rng.weighted(NAME_CHARS);
    // A leading `:` would be pathspec magic to `git check-ignore`.
    if (name !== "." && name !== ".." && name !== ".git" && name !== ".gitignore" && !name.startsWith(":")) return name;
  }
}

/** A tree: folders up to four deep, sometimes a long chain of `a` folders (for `**` chains). */
function randomTree(rng: Prng): { files: string[]; dirs: string[] } {
  const dirs: string[] = [];
  const files: string[] = [];
  const grow = (prefix: string, depth: number) => {
    const count = rng.range(1, depth === 0 ? 6 : 4);
    const used = new Set<string>();
    for (let i = 0; i < count; i++) {
      const name = rng.chance(0.3) ? rng.pick(["a", "b", "ab", "A", "x.log", "build", ".hidden"]) : randomName(rng);
      if (used.has(name)) continue;
      used.add(name);
      const path = prefix + name;
      if (depth < 3 && rng.chance(0.45)) {
        dirs.push(`${path}/`);
        grow(`${path}/`, depth + 1);
      } else files.push(path);
    }
  };
  grow("", 0);
  if (rng.chance(0.15)) {
    let path = "";
    for (let i = 0; i < rng.range(5, 24); i++) {
      path += rng.pick(["a/", "a/", "b/"]);
      if (!dirs.includes(path)) dirs.push(path);
    }
    files.push(`${path}b`, `${path}c`);
  }
  return { files: files.filter((f) => !dirs.includes(`${f}/`)), dirs };
}

const PATTERN_PIECES: ReadonlyArray<readonly [number, () => string]> = [
  [8, () => "a"], [4, () => "b"], [2, () => "A"], [2, () => "x"], [2, () => "."], [1, () => "é"], [1, () => "日"],
  [4, () => "/"], [6, () => "*"], [4, () => "**"], [1, () => "***"], [3, () => "?"], [1, () => " "], [1, () => "-"],
  [1, () => "\\*"], [1, () => "\\?"], [1, () => "\\["], [1, () => "\\ "], [1, () => "\\\\"], [1, () => "\\a"], [1, () => "\\/"],
  [1, () => "!"], [1, () => "#"], [1, () => "\t"], [1, () => "{a,b}"], [1, () => "+(a)"], [1, () => "@(b)"], [1, () => "(a|b)"],
];

function randomClass(rng: Prng): string {
  let body = rng.weighted([[5, ""], [2, "!"], [2, "^"]] as const);
  const count = rng.range(1, 4);
  for (let i = 0; i < count; i++) {
    body += rng.weighted([
      [4, () => rng.pick(["a", "b", "A", "B", "x", ".", "-", "]", "é", "/", "!", "^", "[", " "])],
      [3, () => rng.pick(["a-c", "A-Z", "a-z", "!-~", "0-9", "z-a", "--0", "é-ê", "\\]-a", "a-\\]"])],
      [2, () => `[:${rng.pick(["alpha", "alnum", "upper", "lower", "digit", "space", "punct", "blank", "cntrl", "graph", "print", "xdigit", "foo", ""])}:]`],
      [1, () => rng.pick(["\\", "\\]", "\\\\", "[:", "[:alpha", "[]"])],
    ] as const)();
  }
  return rng.chance(0.92) ? `[${body}]` : `[${body}`;
}

/** A pattern made from a path of the tree: some characters and segments turned into wildcards. */
function patternFromPath(rng: Prng, path: string): string {
  const segments = path.replace(/\/$/, "").split("/");
  let out = segments
    .map((segment) => {
      if (rng.chance(0.15)) return "*";
      if (rng.chance(0.1)) return "**";
      let text = "";
      for (const char of segment) {
        if (rng.chance(0.1)) text += "?";
        else if (rng.chance(0.05)) text += "*";
        else if (rng.chance(0.05)) text += `[${char === "]" || char === "\\" ? `\\${char}` : char}]`;
        else if (rng.chance(0.06) && char.toLowerCase() !== char.toUpperCase()) text += rng.chance(0.5) ? char.toUpperCase() : char.toLowerCase();
        else text += "*?[\\ !#".includes(char) && rng.chance(0.8) ? `\\${char}` : char;
      }
      return text;
    })
    .join("/");
  if (rng.chance(0.3)) out = out.split("/").pop()!;
  if (rng.chance(0.2)) out = `/${out}`;
  if (rng.chance(0.15)) out = `**/${out}`;
  if (rng.chance(0.1)) out += "/**";
  return out;
}

function randomLine(rng: Prng, paths: string[]): string {
  let pattern: string;
  if (paths.length > 0 && rng.chance(0.55)) pattern = patternFromPath(rng, rng.pick(paths));
  else if (rng.chance(0.08)) pattern = rng.pick(["a/**/a/**/a/**/a/**/a/**/a/**/b", "**/a/**/a/**/a/**/a/**/c", "*a*a*a*a*a*a*a*a*b", "a**/b", "a**", "/a**/b", "a/***/b", "**", "/**", "**/", "a/**/"]);
  else {
    pattern = "";
    for (let i = rng.range(1, 6); i > 0; i--) pattern += rng.chance(0.12) ? randomClass(rng) : rng.weighted(PATTERN_PIECES)();
  }
  if (rng.chance(0.2)) pattern = `!${pattern}`;
  if (rng.chance(0.04)) pattern = `\\${rng.pick(["!", "#"])}${pattern}`;
  if (rng.chance(0.15)) pattern += "/";
  if (rng.chance(0.12)) pattern += rng.pick([" ", "  ", "\\ ", "\\  ", " \\ ", "\t", "\\"]);
  if (rng.chance(0.05)) pattern = rng.pick(["#", "# ", " #"]) + pattern;
  if (rng.chance(0.03)) pattern = rng.pick(["", " ", "   ", "\0", `a\0b`]);
  return pattern;
}

function randomIgnoreText(rng: Prng, paths: string[]): string {
  const lines = Array.from({ length: rng.range(1, 7) }, () => randomLine(rng, paths));
  const newline = rng.chance(0.15) ? "\r\n" : "\n";
  let text = lines.join(newline);
  if (rng.chance(0.6)) text += newline;
  if (rng.chance(0.05)) text = `\uFEFF${text}`;
  return text;
}

/** Case `index` of the campaign `seed`. */
export function generateCase(seed: number, index: number): GitignoreCase {
  const rng = new Prng(seed, index);
  const { files, dirs } = randomTree(rng);
  const all = [...dirs, ...files];
  const ignoreFiles: Record<string, string> = { ".gitignore": randomIgnoreText(rng, all) };
  for (const dir of dirs) {
    if (rng.chance(0.25)) {
      const below = all.filter((p) => p.startsWith(dir) && p !== dir).map((p) => p.slice(dir.length));
      ignoreFiles[`${dir}.gitignore`] = randomIgnoreText(rng, below);
    }
  }
  if (rng.chance(0.3)) ignoreFiles[".git/info/exclude"] = randomIgnoreText(rng, all);
  const entries = [...all, ...Object.keys(ignoreFiles).filter((p) => !p.startsWith(".git/"))].sort();
  return { index, entries, ignoreFiles, ignoreCase: rng.chance(0.3), ...(dirs.length && rng.chance(0.3) ? { subStart: rng.pick(dirs) } : {}) };
}

/** The paths `git check-ignore --no-index` reports as ignored in `root`. */
function gitIgnored(root: string, paths: string[], ignoreCase: boolean, home: string): Set<string> {
  const run = spawnSync("git", ["-c", `core.ignorecase=${ignoreCase}`, "check-ignore", "--no-index", "--stdin", "-z"], {
    cwd: root,
    input: paths.map((p) => `${p}\0`).join(""),
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", LC_ALL: "C" },
  });
  // 0: some paths are ignored, 1: none; anything else is git failing.
  if (run.status !== 0 && run.status !== 1) throw new Error(`git check-ignore failed (${run.status}): ${run.stderr}`);
  return new Set(run.stdout.split("\0").filter(Boolean));
}

/** Lays the case out under `root` as a minimal repository. */
function materialize(root: string, c: GitignoreCase): void {
  mkdirSync(join(root, ".git", "objects"), { recursive: true });
  mkdirSync(join(root, ".git", "refs"), { recursive: true });
  mkdirSync(join(root, ".git", "info"), { recursive: true });
  writeFileSync(join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
  for (const entry of c.entries) {
    if (entry.endsWith("/")) mkdirSync(join(root, entry), { recursive: true });
  }
  for (const entry of c.entries) if (!entry.endsWith("/")) writeFileSync(join(root, entry), "");
  for (const [path, text] of Object.entries(c.ignoreFiles)) writeFileSync(join(root, path), text);
}

async function walked(root: string, start: string, ignoreCase: boolean): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of walkFiles(join(root, start), { roots: [root], ignoreCase })) out.push(entry.relativePath + (entry.isDirectory ? "/" : ""));
  return out.sort();
}

/** Runs one case; the first disagreement, or undefined. Counts compared paths into `stats`. */
export async function runCase(c: GitignoreCase, scratch: string, stats: { paths: number }): Promise<GitignoreMismatch | undefined> {
  const root = join(scratch, `case-${c.index}`);
  mkdirSync(root);
  try {
    materialize(root, c);
    const ignored = gitIgnored(root, c.entries.map((e) => e.replace(/\/$/, "")), c.ignoreCase, scratch);
    const kept = c.entries.filter((e) => !ignored.has(e.replace(/\/$/, "")));
    const starts = [""];
    if (c.subStart && kept.includes(c.subStart)) starts.push(c.subStart);
    for (const start of starts) {
      const expected = kept.filter((e) => e.startsWith(start) && e !== start).map((e) => e.slice(start.length));
      const actual = await walked(root, start, c.ignoreCase);
      stats.paths += c.entries.filter((e) => e.startsWith(start) && e !== start).length;
      const onlyWalk = actual.filter((p) => !expected.includes(p));
      const onlyGit = expected.filter((p) => !actual.includes(p));
      if (onlyWalk.length || onlyGit.length) return { case: c, start, onlyWalk, onlyGit };
    }
    return undefined;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** A campaign of `count` cases; stops at the first mismatch. */
export async function runGitignoreCampaign(seed: number, count: number): Promise<{ cases: number; paths: number; mismatch?: GitignoreMismatch }> {
  const scratch = mkdtempSync(join(realpathSync(tmpdir()), "acp-gitignore-fuzz-"));
  const stats = { paths: 0 };
  try {
    for (let index = 0; index < count; index++) {
      const mismatch = await runCase(generateCase(seed, index), scratch, stats);
      if (mismatch) return { cases: index + 1, paths: stats.paths, mismatch };
    }
    return { cases: count, paths: stats.paths };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A mismatch as text a person can reproduce from. */
export function describeMismatch(seed: number, m: GitignoreMismatch): string {
  const files = Object.entries(m.case.ignoreFiles).map(([path, text]) => `  ${path}: ${JSON.stringify(text)}`);
  return [
    `seed ${seed}, case ${m.case.index}, ignoreCase ${m.case.ignoreCase}, walk from ${JSON.stringify(m.start || ".")}`,
    "ignore files:",
    ...files,
    `entries: ${JSON.stringify(m.case.entries)}`,
    `only the walk yields: ${JSON.stringify(m.onlyWalk)}`,
    `only git keeps: ${JSON.stringify(m.onlyGit)}`,
  ].join("\n");
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const at = args.indexOf(`--${name}`);
    return at >= 0 ? Number(args[at + 1]) : undefined;
  };
  const seed = option("seed") ?? Math.floor(Math.random() * 2 ** 31);
  const count = option("count") ?? 2000;
  const started = performance.now();
  const result = await runGitignoreCampaign(seed, count);
  console.log(`gitignore fuzz: seed ${seed}, ${result.cases} cases, ${result.paths} paths compared with git, ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (result.mismatch) {
    console.log(describeMismatch(seed, result.mismatch));
    process.exit(1);
  }
}
