/**
 * Hooks as a Claude Code user writes them: small shell scripts and a
 * `settings.json` whose `hooks` run them. Each script records the JSON it
 * was given on stdin in a log folder of its own (one file per run), so a
 * test reads exactly what every hook saw.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Writes `name` into `folder` as an executable script and returns the command that runs it. */
export function script(folder: string, name: string, body: string): string {
  mkdirSync(folder, { recursive: true });
  const path = join(folder, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return `sh '${path}'`;
}

/** A script body that keeps its stdin as one file of `log` named after the event and a random part. */
export function logInput(log: string): string {
  return `input=$(cat); f="${log}/$(od -An -N8 -tx8 /dev/urandom | tr -d ' \\n')"; printf '%s' "$input" > "$f.json"`;
}

/** Every input the logging hooks recorded, parsed. */
export function loggedInputs(log: string): Array<Record<string, any>> {
  let names: string[];
  try {
    names = readdirSync(log).filter((n) => n.endsWith(".json"));
  } catch {
    return [];
  }
  const out: Array<Record<string, any>> = [];
  for (const name of names) {
    try {
      out.push(JSON.parse(readFileSync(join(log, name), "utf8")));
    } catch {
      // being written
    }
  }
  return out;
}

/** A hook group of settings.json. */
export function group(command: string, matcher?: string, timeout?: number): Record<string, unknown> {
  return { ...(matcher === undefined ? {} : { matcher }), hooks: [{ type: "command", command, ...(timeout === undefined ? {} : { timeout }) }] };
}

/** Writes a settings.json holding `hooks`. */
export function writeHooks(path: string, hooks: Record<string, unknown>): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, JSON.stringify({ hooks }, null, 2));
}
