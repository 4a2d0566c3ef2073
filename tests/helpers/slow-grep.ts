/**
 * A grep that runs for about a minute on the linear-time engine: a pattern
 * whose every line costs the engine a good fraction of a second, and a file
 * of such lines. For tests of what happens while a search runs.
 */

/** Linear-time, but costly per character (Unicode classes, many states). */
export const SLOW_PATTERN = "(\\p{L}[\\p{L} ]{100}){10}\\p{N}";

/** `lines` pseudo-random lines of `length` letters and spaces (just under the engine's per-line budget for SLOW_PATTERN). */
export function slowFile(lines = 100, length = 19_000): string {
  let seed = 7;
  const out: string[] = [];
  for (let l = 0; l < lines; l++) {
    let line = "";
    for (let i = 0; i < length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      line += "abcdefghij "[seed % 11];
    }
    out.push(line);
  }
  return `${out.join("\n")}\n`;
}
