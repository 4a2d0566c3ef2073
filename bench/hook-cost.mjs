// What hooks add to each tool call: one agent process per case runs a scripted turn of `--commands N`
// (default 20) `bash` calls of `true`, one after another, in `yolo`: once with a HOME whose
// `.claude/settings.json` holds no hooks, once with a PreToolUse and a PostToolUse hook on Bash that
// read their input and exit 0 (`cat >/dev/null`), turns interleaved. The turn's time divided by N is the
// time per call. Printed per runtime: both figures and the difference (two hook runs per call), medians
// of `--runs` turns (default 5) after one warm-up turn each. The faux model answers at once.
// Usage: npm run build && node bench/hook-cost.mjs [--runs N] [--commands N] [--bun] [--deno]
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { comparePerCall, perCallOptions } from "./per-call-cost.mjs";

const hook = { matcher: "Bash", hooks: [{ type: "command", command: "cat >/dev/null" }] };

/** A case whose user home holds `settings` as its Claude Code settings. */
function userHome(settings) {
  return {
    mode: "yolo",
    prepare(dir) {
      const home = join(dir, "user");
      mkdirSync(join(home, ".claude"), { recursive: true });
      writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify(settings));
      return { HOME: home };
    },
  };
}

const options = perCallOptions(process.argv.slice(2));
for (const target of options.targets) {
  const { a: plain, b: hooked } = await comparePerCall(target, options, userHome({}), userHome({ hooks: { PreToolUse: [hook], PostToolUse: [hook] } }));
  console.log(`${target.name}: per call ${plain.toFixed(2)} ms without hooks, ${hooked.toFixed(2)} ms with a PreToolUse and a PostToolUse hook: +${(hooked - plain).toFixed(2)} ms (median of ${options.runs} turns of ${options.commands} calls)`);
}
