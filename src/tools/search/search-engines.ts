/**
 * The third-party engines behind grep and find: re2js (linear-time
 * regular expressions) and picomatch (globs, `.gitignore` patterns too).
 * They load the first time a search runs, not when a session opens: a
 * session that never searches never pays for them (about 1 MiB and a few
 * milliseconds on Node). Searches await `loadSearchEngines()` first; using
 * an engine before that is a programming error and says so.
 * @module
 */
import type * as Re2js from "re2js";
import type Picomatch from "picomatch";

export interface SearchEngines {
  re2js: typeof Re2js;
  picomatch: typeof Picomatch;
}

let loaded: SearchEngines | undefined;
let loading: Promise<SearchEngines> | undefined;

/** Loads the engines once; a failed load is tried again by the next search. */
export function loadSearchEngines(): Promise<SearchEngines> {
  loading ??= Promise.all([import("re2js"), import("picomatch")]).then(
    ([re2js, picomatch]) => (loaded = { re2js, picomatch: picomatch.default }),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The loaded engines (after `loadSearchEngines()` resolved). */
export function searchEngines(): SearchEngines {
  if (!loaded) throw new Error("the search engines were used before loadSearchEngines() finished");
  return loaded;
}
