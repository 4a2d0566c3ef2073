/**
 * Preloaded with `node --import` by the start-path test: registers a module
 * loader hook (Node's public `module.register`, Node 20.6+) that writes one
 * line per module Node loads — `#module-load <url>` — to the process's own
 * standard output with a synchronous write. The agent's answers go to the
 * same pipe, so a reader sees every module fetched before an answer ahead of
 * that answer's line. Writes nothing else and changes nothing it loads.
 */
import { register } from "node:module";

const hooks = `
import { writeSync } from "node:fs";
export async function load(url, context, nextLoad) {
  writeSync(1, "#module-load " + url + "\\n");
  return nextLoad(url, context);
}
`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
