/**
 * What the checkpoint step costs around a command: the first snapshot of a
 * session's folders (every file read, hashed and kept once), a snapshot of
 * the same tree unchanged (sizes and times only), and one after a command
 * changed a few files, for trees of growing size; and the store's size.
 * Then what the project's `.gitignore` costs an unchanged snapshot of 5,000
 * files: none, a real-sized one (150 rules of the usual shapes), and a hostile one (60,000
 * rules: past the walk's rule budget, so not applied, and named).
 * Usage: bun bench/checkpoint-snapshots.ts   (or deno run -A bench/checkpoint-snapshots.ts)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { snapshotFolders } from "../src/sessions/checkpoints/folder-snapshot.ts";
import { ObjectStore } from "../src/sessions/checkpoints/object-store.ts";

const signal = new AbortController().signal;
const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
};

console.log("files (4 KiB each) | first snapshot ms | unchanged ms | after 10 changed ms | store MiB");
for (const files of [1_000, 5_000, 20_000]) {
  const root = mkdtempSync(join(tmpdir(), "checkpoint-bench-"));
  try {
    const project = join(root, "project");
    for (let i = 0; i < files; i++) {
      const folder = join(project, `d${i % 50}`);
      if (i < 50) mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, `f${i}.txt`), `${i}\n`.padEnd(4096, "x"));
    }
    const store = new ObjectStore(join(root, "store"));
    const [first, firstMs] = await timed(() => snapshotFolders([project], store, new Map(), signal));
    const [, sameMs] = await timed(() => snapshotFolders([project], store, first.files, signal));
    for (let i = 0; i < 10; i++) writeFileSync(join(project, `d${i % 50}`, `f${i}.txt`), `changed ${i}\n`);
    const [, changedMs] = await timed(() => snapshotFolders([project], store, first.files, signal));
    const storeMiB = (files * 4096) / (1024 * 1024);
    console.log(`${String(files).padStart(18)} | ${firstMs.toFixed(0).padStart(17)} | ${sameMs.toFixed(0).padStart(12)} | ${changedMs.toFixed(0).padStart(19)} | ${storeMiB.toFixed(1)}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

console.log("\n.gitignore (5,000 files) | rules | unchanged snapshot ms | not applied");
for (const [name, rules] of [["none", 0], ["real-sized", 150], ["hostile", 60_000]] as const) {
  const root = mkdtempSync(join(tmpdir(), "checkpoint-bench-"));
  try {
    const project = join(root, "project");
    for (let i = 0; i < 5_000; i++) {
      const folder = join(project, `d${i % 50}`);
      if (i < 50) mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, `f${i}.txt`), `${i}\n`);
    }
    if (rules > 0) writeFileSync(join(project, ".gitignore"), Array.from({ length: rules }, (_, n) => [`*.tmp${n}`, `cache-${n}/`, `/out-${n}`][n % 3]).join("\n"));
    const store = new ObjectStore(join(root, "store"));
    const first = await snapshotFolders([project], store, new Map(), signal);
    const [same, sameMs] = await timed(() => snapshotFolders([project], store, first.files, signal));
    console.log(`${name.padStart(24)} | ${String(rules).padStart(5)} | ${sameMs.toFixed(0).padStart(21)} | ${same.unappliedRules.length > 0 ? "yes" : "no"}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
