/**
 * What HTML's named character references stand for, looked up through
 * linkedom: the names are parsed as one small document (a bounded count
 * of distinct names), so the full list of names is not copied into this
 * project. Loaded only for a page that uses an uncommon name.
 * @module
 */

/** Each name that is a character reference, with its text; names that are none are left out. */
export async function decodeEntityNames(names: readonly string[]): Promise<Array<[string, string]>> {
  const valid = names.filter((name) => /^[a-zA-Z][a-zA-Z0-9]{1,31}$/.test(name)).slice(0, 4096);
  if (valid.length === 0) return [];
  const { parseHTML } = await import("linkedom");
  const { document } = parseHTML(`<html><body>${valid.map((name) => `<p>&${name};</p>`).join("")}</body></html>`);
  const decoded = Array.from(document.querySelectorAll("p"), (p) => p.textContent ?? "");
  const table: Array<[string, string]> = [];
  valid.forEach((name, i) => {
    const text = decoded[i];
    if (text !== undefined && text !== `&${name};`) table.push([name, text]);
  });
  return table;
}
