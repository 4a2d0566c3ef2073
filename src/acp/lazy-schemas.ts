/**
 * The ACP SDK builds all of its zod schemas when it loads: about half of
 * what Node spends before it can answer `initialize`, and a quarter of its
 * memory then. The dist build (scripts/build.mjs) hands the SDK this table
 * in place of its generated schema module, whose schemas it rewrites into
 * builders, so each schema (and what it is made of) is built the first time
 * something parses with it; the schemas of methods never called are never
 * built. Every schema the SDK's app layer
 * holds is only ever used through its properties (`.parse`, `.safeParse`),
 * which this forwards to the real schema.
 * @module
 */

/**
 * The value of export `name` of a loaded module: for the rewritten schema module (which exports
 * `__schemas`, a builder per schema) the schema, built now if it was not yet.
 */
function exportOf(module: Record<string, unknown>, name: string): Record<PropertyKey, unknown> {
  const builders = module.__schemas as Record<string, () => Record<PropertyKey, unknown>> | undefined;
  return builders && Object.hasOwn(builders, name) ? builders[name]!() : (module[name] as Record<PropertyKey, unknown>);
}

/** A stand-in for module `load()`'s export `name`: property reads go to the real value, built on first use. */
function lazyExport(load: () => Record<string, unknown>, name: string): unknown {
  const real = () => exportOf(load(), name);
  // Methods bound once each: `.parse` is read on every request.
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(
    {},
    {
      get(_target, key) {
        const target = real();
        const value = Reflect.get(target, key, target);
        if (typeof value !== "function") return value;
        if (!bound.has(key)) bound.set(key, value.bind(target));
        return bound.get(key);
      },
      has: (_target, key) => Reflect.has(real(), key),
    },
  );
}

/** A namespace whose every export is a lazy stand-in for the same export of `load()`. */
export function lazyNamespace(load: () => Record<string, unknown>): Record<string, unknown> {
  let loaded: Record<string, unknown> | undefined;
  const once = () => (loaded ??= load());
  const stand = new Map<string, unknown>();
  return new Proxy(
    {},
    {
      get(_target, name) {
        if (typeof name !== "string") return undefined;
        if (!stand.has(name)) stand.set(name, lazyExport(once, name));
        return stand.get(name);
      },
    },
  );
}
