/**
 * The test command: runs `bun test` over tests/ and ends with a plain
 * `N passed, N failed` line read from bun's JUnit report (bun's own summary
 * is not in that form). Extra arguments go to `bun test`.
 *
 * `ACP_EDGE_TEST_NODES=/a/node,/b/node` also runs the end-to-end stdio and
 * serve suites (of this run's files) on each of those Node binaries, node
 * runtime only, and folds their counts into the one final line.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const resultsDir = join(root, ".test-results");
mkdirSync(resultsDir, { recursive: true });

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

/** One `bun test` run with its own JUnit report; its counts. */
async function bunTest(files: string[], report: string, env: Record<string, string> = {}): Promise<Counts> {
  rmSync(report, { force: true });
  const proc = Bun.spawn([process.execPath, "test", "--timeout", "60000", "--reporter=junit", `--reporter-outfile=${report}`, ...files], {
    cwd: root,
    env: { ...process.env, ...env },
    stdout: "inherit",
    stderr: "inherit",
    stdin: "ignore",
  });
  const code = await proc.exited;
  const counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  try {
    const xml = readFileSync(report, "utf8");
    const suites = /<testsuites\b[^>]*>/.exec(xml)?.[0] ?? "";
    const attr = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(suites)?.[1] ?? 0);
    counts.failed = attr("failures") + attr("errors");
    counts.skipped = attr("skipped");
    counts.passed = attr("tests") - counts.failed - counts.skipped;
  } catch {
    counts.failed = 1;
  }
  if (code !== 0 && counts.failed === 0) counts.failed = 1; // bun failed outside any test (load error, crash)
  return counts;
}

/** The stdio and serve end-to-end files among `args` (all of them when no files were named). */
function nodeSuites(args: string[]): string[] {
  const e2e = join(root, "tests", "e2e");
  const all = readdirSync(e2e)
    .filter((name) => /^(stdio|serve)-.*\.test\.ts$/.test(name))
    .map((name) => relative(root, join(e2e, name)));
  const named = args.filter((arg) => !arg.startsWith("-"));
  if (named.length === 0) return all;
  return all.filter((file) => named.some((arg) => relative(root, resolve(root, arg)) === file || file.startsWith(`${relative(root, resolve(root, arg))}/`)));
}

const args = process.argv.slice(2);
const total = await bunTest(args.length ? args : ["tests/"], join(resultsDir, "junit.xml"));

const nodes = (process.env.ACP_EDGE_TEST_NODES ?? "").split(",").filter(Boolean);
const suites = nodes.length ? nodeSuites(args) : [];
for (const node of suites.length ? nodes : []) {
  const version = Bun.spawnSync([node, "--version"]).stdout.toString().trim() || node;
  console.log(`\nThe stdio and serve end-to-end suites on Node ${version} (${node}):`);
  const counts = await bunTest(suites, join(resultsDir, `junit-node-${version}.xml`), { ACP_EDGE_TEST_RUNTIMES: "node", ACP_EDGE_TEST_NODE: node });
  console.log(`Node ${version}: ${counts.passed} passed, ${counts.failed} failed${counts.skipped ? `, ${counts.skipped} skipped` : ""}`);
  total.passed += counts.passed;
  total.failed += counts.failed;
  total.skipped += counts.skipped;
}

console.log(`${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ""}`);
process.exit(total.failed === 0 ? 0 : 1);
