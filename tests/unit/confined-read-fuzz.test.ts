/**
 * Seeded random hostile trees for the confined reader and folder walker:
 * files, folders, FIFOs, sparse files and links (relative and absolute, to
 * files and folders inside and outside, to /proc, devices, nowhere, loops,
 * chains) at random depths. For every name, `readConfinedFile` must agree
 * with an oracle built from plain `realpath`/`lstat`/`readFileSync`, never
 * return outside content or more than the budget, and never block; every
 * file `listConfinedFiles` lists must resolve inside the areas to a regular
 * file. A failing seed prints itself: rerun with CONFINED_FUZZ_SEED=<n>.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, readFileSync, realpathSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { readConfinedFile, resolveAreas, type ConfinedRead } from "../../src/runtime/files/confined-file.ts";
import { listConfinedFiles } from "../../src/runtime/files/confined-folder.ts";
import { makeSandbox, type Sandbox } from "../helpers/agent-process.ts";
import { Prng } from "../fuzz/transport-prng.ts";

const OUTSIDE = "OUTSIDE-FUZZ-c41e";
const TREES = 30;
const ENTRIES = 40;
const FIRST_SEED = Number(process.env.CONFINED_FUZZ_SEED ?? 1);

const pick = <T>(rng: Prng, items: readonly T[]): T => items[rng.uint32() % items.length]!;

/** Builds one random tree in `sandbox.project` (outside things in `sandbox.root/outside`); returns every name made. */
function plantTree(rng: Prng, sandbox: Sandbox): string[] {
  const outside = join(sandbox.root, "outside");
  mkdirSync(join(outside, "dir"), { recursive: true });
  writeFileSync(join(outside, "secret.md"), OUTSIDE);
  writeFileSync(join(outside, "dir", "secret.md"), OUTSIDE);
  const folders = [""];
  const names: string[] = [];
  for (let i = 0; i < ENTRIES; i++) {
    const parent = pick(rng, folders);
    const name = join(parent, `e${i}${rng.uint32() % 2 ? ".md" : ""}`);
    const path = join(sandbox.project, name);
    const kind = rng.uint32() % 12;
    const target = (): string => {
      const choice = rng.uint32() % 11;
      const existing = names.length > 0 ? pick(rng, names) : "nowhere";
      switch (choice) {
        case 0:
          return join(outside, "secret.md");
        case 1:
          return relative(dirname(path), join(outside, "dir"));
        case 2:
          return "/proc/self/environ";
        case 3:
          return pick(rng, ["/dev/zero", "/dev/null", "/dev/urandom"]);
        case 4:
          return "missing-target";
        case 5:
          return name.split(sep).pop()!; // itself: a loop
        case 6:
          return pick(rng, ["..", ".", "/"]);
        case 7:
          return join(sandbox.project, existing);
        default:
          return relative(dirname(path), join(sandbox.project, existing));
      }
    };
    if (kind <= 2) writeFileSync(path, `INSIDE-${i}-` + "x".repeat(rng.uint32() % 3000));
    else if (kind === 3) {
      mkdirSync(path);
      folders.push(name);
    } else if (kind === 4) execFileSync("mkfifo", [path]);
    else if (kind === 5) {
      writeFileSync(path, "");
      truncateSync(path, 1024 ** 3);
    } else symlinkSync(target() || ".", path);
    names.push(name);
  }
  // Names through linked folders too: `link/child` may leave the areas by way of the link.
  for (const name of [...names]) names.push(join(name, "secret.md"), join(name, pick(rng, names).split(sep).pop()!));
  return names;
}

/** What a correct reader must answer, from plain system calls. */
function oracle(path: string, areas: readonly string[], budget: number): ConfinedRead {
  let real: string;
  try {
    real = realpathSync(path);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      try {
        return lstatSync(path).isSymbolicLink() ? { ok: false, reason: "dangling" } : { ok: false, reason: "missing" };
      } catch {
        return { ok: false, reason: "missing" };
      }
    }
    return { ok: false, reason: "unreadable", detail: code === "ELOOP" ? "a symbolic link loop" : String(code) };
  }
  if (!areas.some((area) => real === area || real.startsWith(area + sep))) return { ok: false, reason: "outside" };
  const info = lstatSync(real);
  if (!info.isFile()) return { ok: false, reason: "not-regular", detail: info.isDirectory() ? "a folder" : info.isFIFO() ? "a FIFO" : "other" };
  if (info.size > budget) return { ok: false, reason: "too-large" };
  return { ok: true, text: readFileSync(real, "utf8"), realPath: real };
}

describe("confined reading of random hostile trees", () => {
  const sandboxes: Sandbox[] = [];
  afterAll(() => sandboxes.forEach((s) => s.cleanup()));

  for (let seed = FIRST_SEED; seed < FIRST_SEED + TREES; seed++) {
    test(`seed ${seed}`, async () => {
      const rng = new Prng(seed);
      const sandbox = makeSandbox();
      sandboxes.push(sandbox);
      const names = plantTree(rng, sandbox);
      const areas = await resolveAreas([sandbox.project]);
      for (const name of names) {
        const path = join(sandbox.project, name);
        const budget = 16 + (rng.uint32() % 4096);
        const got = await readConfinedFile(path, { areas, budget });
        const want = oracle(path, areas, budget);
        const where = `seed ${seed}, ${name} (budget ${budget})`;
        expect(JSON.stringify(got), where).not.toContain(OUTSIDE);
        if (got.ok) expect(new TextEncoder().encode(got.text).length, where).toBeLessThanOrEqual(budget);
        if (want.ok || got.ok) expect(got, where).toEqual(want);
        else expect(got.reason, where).toBe(want.reason);
      }
      const listing = await listConfinedFiles(sandbox.project, { areas, accept: (n) => n.endsWith(".md"), maxDepth: 3, maxFiles: 500, maxEntries: 5000 });
      for (const file of listing.files) {
        const real = realpathSync(file.path);
        expect(areas.some((area) => real.startsWith(area + sep)), `seed ${seed}: ${file.path} → ${real}`).toBe(true);
        expect(lstatSync(real).isFile(), `seed ${seed}: ${file.path}`).toBe(true);
      }
      expect(JSON.stringify(listing)).not.toContain(OUTSIDE);
    });
  }
});
