/**
 * A seeded property test of the command gate in `ask` mode: random command
 * lines from a grammar of plain commands, every kind of quoting, separators
 * and hostile tokens. A line with a hostile token must never run unasked; a
 * line without one runs unasked exactly when each of its simple commands is
 * covered by an allow. Every line the gate lets run is then run by real
 * shells with stub programs that log their argv, to check the gate's
 * reading against the shell's. Set ACP_EDGE_GATE_SEED to replay a seed.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { splitShellCommand } from "../../src/permissions/command-line.ts";
import { evaluatePolicy } from "../../src/permissions/policy.ts";
import type { Grant } from "../../src/permissions/grants.ts";
import type { PermissionRule } from "../../src/config/settings-schema.ts";

const SEED = Number(process.env.ACP_EDGE_GATE_SEED ?? 20261130);
const LINES = 400;
const ALLOWED = [["npm", "test"], ["git", "status"], ["ls"]];
const NAMES = ["npm", "git", "ls", "cat", "touch", "rm"];
const ARGS = ["test", "status", "-rf", "x", "a b", "it's", "--watch", ";", "&&", "|", "#", "$HOME", "", "-", "2", "a=b", "*", "\\", "x\ty"];
const SEPARATORS = [";", " ; ", " && ", " || ", " | ", " & ", "\n", "\n\n"];
const REDIRECTIONS = ["", "", "", " 2>&1", " >/dev/null", " 2>/dev/null", " </dev/null", " 1>&2"];
/** Tokens that put a word outside the accounted subset, wherever they stand in it. */
const HOSTILE_WORDS = [
  "$'\\''", "$'x'", '$"x"', "$(touch P)", "`touch P`", '"$(touch P)"', '"`touch P`"', "$HOME", '"$HOME"', "${HOME}", "$1",
  "*", "?", "[a]", "{a,b}", "~", "'", '"', "\\\n", "<(touch P)", ">(touch P)", "#'", "!", "#",
];
/** Tokens that stand between commands. */
const HOSTILE_SEPARATORS = [" # c\n", " |& ", " ;; ", " \\\n", "\r", " <<EOF\ntouch P\nEOF\n", " > out ; ", " >> out ; ", " < in ; ", " &> out ; ", " >&out ; ", " ( ", " ) ", " <<<x ; "];
/** Tokens that stand before a command word. */
const HOSTILE_PREFIXES = ["FOO=1 ", "PATH=. ", "eval ", "exec ", "sh -c ", "bash -c ", "env ", "command ", "nohup ", "sudo ", "time ", "xargs ", "! ", "{ ", "if ", "builtin "];

/** mulberry32: a small seeded generator, so a failing case can be replayed. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { chance: (p: number) => next() < p, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]! };
}
type Random = ReturnType<typeof generator>;

/** One word written in a random but faithful way: the shell reads it back as `value`. */
function render(value: string, r: Random): string {
  const styles: Array<() => string | undefined> = [
    () => (/^[A-Za-z0-9_\-./:,+@%][A-Za-z0-9_\-./:,+@%=]*$/.test(value) ? value : undefined),
    () => (value.includes("'") ? undefined : `'${value}'`),
    () => `"${value.replace(/["\\$`]/g, "\\$&")}"`,
    () => (value === "" ? undefined : [...value].map((c) => `\\${c}`).join("")),
    () => (value.length < 2 ? undefined : render(value.slice(0, 1), r) + render(value.slice(1), r)),
  ];
  for (;;) {
    const written = r.pick(styles)();
    if (written !== undefined) return written;
  }
}

interface Generated {
  line: string;
  commands: string[][];
  /** The commands a shell runs when every program exits 0. */
  runs: string[][];
  hostile: boolean;
}

function generateLine(r: Random): Generated {
  const commands: string[][] = [];
  const runs: string[][] = [];
  const count = 1 + Math.floor(r.chance(0.5) ? 0 : r.chance(0.5) ? 1 : 2);
  let line = "";
  let hostile = false;
  let skipping = false;
  for (let i = 0; i < count; i += 1) {
    const words = r.chance(0.6) ? [...r.pick(ALLOWED)] : [r.pick(NAMES)];
    while (r.chance(0.4)) words.push(r.pick(ARGS));
    commands.push(words);
    const written = words.map((w) => render(w, r));
    if (r.chance(0.15)) {
      // A hostile word inserted among the arguments or glued to one of them.
      const token = r.pick(HOSTILE_WORDS);
      const at = 1 + Math.floor(r.chance(0.5) ? 0 : written.length - 1);
      if (r.chance(0.5) && at < written.length) written[at] += token;
      else written.splice(at, 0, token);
      hostile = true;
    }
    let text = written.join(" ") + r.pick(REDIRECTIONS);
    if (r.chance(0.08)) {
      text = r.pick(HOSTILE_PREFIXES) + text;
      hostile = true;
    }
    let separator = "";
    if (i > 0) {
      separator = r.chance(0.08) ? r.pick(HOSTILE_SEPARATORS) : r.pick(SEPARATORS);
      if (!SEPARATORS.includes(separator)) hostile = true;
    }
    // Every program exits 0, so a pipeline right after `||` is skipped (a pipe binds tighter than `||`).
    if (separator.trim() === "||") skipping = true;
    else if (separator.trim() !== "|") skipping = false;
    if (!skipping) runs.push(words);
    line += separator + text;
  }
  return { line, commands, runs, hostile };
}

const covered = (words: string[]) => ALLOWED.some((prefix) => prefix.every((w, i) => words[i] === w));

let dir: string;
let stubs: string;
const SHELLS = ["/bin/bash", "/bin/dash", "/bin/sh"].filter((s) => existsSync(s));
beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "acp-edge-gate-property-")));
  stubs = join(dir, "bin");
  mkdirSync(stubs);
  for (const name of NAMES) {
    const stub = join(stubs, name);
    // One file per invocation (named by pid), so commands running in parallel cannot interleave.
    writeFileSync(stub, `#!/bin/sh\nprintf '%s\\037' "\${0##*/}" "$@" > "$GATE_LOG/$$"\n`);
    chmodSync(stub, 0o755);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What a real shell runs for `line`, as logged by the stubs. */
function runInShell(shell: string, line: string): string[][] {
  const log = join(dir, "log");
  rmSync(log, { recursive: true, force: true });
  mkdirSync(log);
  spawnSync(shell, ["-c", `${line}\nwait`], { cwd: dir, env: { PATH: stubs, GATE_LOG: log }, timeout: 10_000 });
  return readdirSync(log).map((entry) => readFileSync(join(log, entry), "utf8").split("\x1f").slice(0, -1));
}

const sorted = (commands: string[][]) => commands.map((c) => JSON.stringify(c)).sort();

test(`ask mode: nothing runs unasked unless every simple command is covered by an allow (seed ${SEED})`, async () => {
  const r = generator(SEED);
  const rules: PermissionRule[] = ALLOWED.map((words) => ({ action: "allow", command: words.join(" ") }));
  const grants: Grant[] = [{ effect: "allow", class: "execute", scope: { kind: "command", prefixes: ALLOWED.map((w) => w.join(" ")) }, label: "Always allow" }];
  const counts = { allowed: 0, hostile: 0, hostileAllowed: 0, coveredAsked: 0 };
  const ranInShells: Array<{ line: string; runs: string[][] }> = [];
  for (let i = 0; i < LINES; i += 1) {
    const generated = generateLine(r);
    const viaGrant = i % 2 === 1;
    const verdict = await evaluatePolicy({
      toolName: "bash",
      access: { class: "execute", command: generated.line },
      mode: "ask",
      rules: viaGrant ? [] : rules,
      grants: viaGrant ? grants : [],
      cwd: dir,
      roots: [dir],
    });
    const allowed = verdict.decision === "allow";
    const context = `line ${JSON.stringify(generated.line)} (seed ${SEED}, case ${i}, ${viaGrant ? "grant" : "rule"})`;
    if (generated.hostile) {
      counts.hostile += 1;
      expect(allowed, context).toBe(false);
    } else {
      expect(allowed, context).toBe(generated.commands.every(covered));
    }
    if (allowed) {
      counts.allowed += 1;
      ranInShells.push({ line: generated.line, runs: generated.runs });
    }
  }
  // The generator must exercise both sides, or the property says nothing.
  expect(counts.hostile).toBeGreaterThan(LINES / 5);
  expect(counts.allowed).toBeGreaterThan(LINES / 10);
  for (const shell of SHELLS) {
    for (const { line, runs } of ranInShells) {
      const ran = runInShell(shell, line);
      const context = `${shell} -c ${JSON.stringify(line)} (seed ${SEED})`;
      for (const command of ran) expect(covered(command), `${context} ran ${JSON.stringify(command)}`).toBe(true);
      expect(sorted(ran), context).toEqual(sorted(runs));
    }
  }
}, 120_000);

/** Pieces of random text; most lines they make are not accounted for, the rest must read as bash reads them. */
const PIECES = ["a", "b", "ab", " ", " ", "'", '"', "\\", ";", "&", "|", "\n", ">", "<", "2", "1", ">&", "/dev/null", "-", "=", "x", "$", "#", "(", ")", "\t", "%", "."];

test(`every line the lexer accounts for runs in bash exactly the commands it read (seed ${SEED})`, async () => {
  const r = generator(SEED + 1);
  let accounted = 0;
  for (let i = 0; i < 3000 && accounted < 150; i += 1) {
    let line = "";
    const length = 1 + Math.floor(r.pick([1, 2, 3, 4, 5, 6, 8, 10, 12]));
    for (let j = 0; j < length; j += 1) line += r.pick(PIECES);
    const read = splitShellCommand(line);
    // Paths are run directly, not looked up, so bash's not-found handler would not log them.
    if (read.unaccounted.length > 0 || read.commands.some((c) => c.words[0]!.includes("/"))) continue;
    accounted += 1;
    // Every command is "not found" (empty PATH); bash's handler logs its argv instead. It succeeds in one
    // run and fails in the other, so between them every command after `&&` and after `||` is reached.
    const ran = new Set<string>();
    for (const status of ["0", "1"]) {
      const log = join(dir, "log");
      rmSync(log, { recursive: true, force: true });
      mkdirSync(log);
      const prelude = `command_not_found_handle() { printf '%s\\037' "$@" > "$GATE_LOG/$BASHPID.$RANDOM$RANDOM"; return ${status}; }`;
      spawnSync("/bin/bash", ["-c", `${prelude}\n${line}\nwait`], { cwd: dir, env: { PATH: join(dir, "nowhere"), GATE_LOG: log }, timeout: 10_000 });
      for (const entry of readdirSync(log)) ran.add(JSON.stringify(readFileSync(join(log, entry), "utf8").split("\x1f").slice(0, -1)));
    }
    const expected = new Set(read.commands.map((c) => JSON.stringify(c.words)));
    expect([...ran].sort(), `bash -c ${JSON.stringify(line)} (seed ${SEED}, case ${i})`).toEqual([...expected].sort());
  }
  expect(accounted).toBeGreaterThan(50);
}, 120_000);
