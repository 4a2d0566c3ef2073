/**
 * The exports of a CommonJS package loaded with `import()`. Node, Bun and
 * Deno name them on the module; the bundle's split chunks hand over only
 * `default` (the package's `module.exports`). `probe` is an export the
 * package is known to have.
 * @module
 */
export function commonJsExports<T extends object>(module: T, probe: keyof T): T {
  if ((module as Record<PropertyKey, unknown>)[probe] !== undefined) return module;
  const fallback = (module as { default?: T }).default;
  if (fallback && (fallback as Record<PropertyKey, unknown>)[probe] !== undefined) return fallback;
  throw new Error(`a dependency did not load: ${String(probe)} is missing`);
}
