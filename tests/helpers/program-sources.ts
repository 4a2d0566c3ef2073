/**
 * The program's TypeScript sources, as the structure tests read them.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";

/** Every TypeScript source of the program (mod.ts and all of src/), as paths relative to `root`, sorted. */
export function programSources(root: string): string[] {
  const out: string[] = ["mod.ts"];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts")) out.push(path);
    }
  };
  walk("src");
  return out.sort();
}
