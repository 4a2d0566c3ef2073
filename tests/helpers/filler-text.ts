/**
 * Text worth reading for prompt-caching tests: `chars` characters whose lines
 * differ from one another, so no two files or blocks look alike.
 * @module
 */
export function filler(label: string, chars: number): string {
  const lines: string[] = [];
  for (let i = 0, n = 0; n < chars; i += 1) {
    const line = `${label} line ${i}: the quick brown fox jumps over the lazy dog ${(i * 7919) % 10007}`;
    lines.push(line);
    n += line.length + 1;
  }
  return `${lines.join("\n")}\n`;
}
