/**
 * A live session's language servers, made the first time one of its calls
 * changes a file: they see the session's folders and the user's `lsp`
 * settings, and run under the session's sandbox; unconfined only in `yolo`
 * mode, and not at all where the sandbox is off or missing (a server runs the
 * repository's code: see lsp/session-servers.ts).
 * @module
 */
import { languageServers, type LanguageServers } from "../lsp/session-lsp.ts";
import type { LiveSession } from "./live-session.ts";
import { sessionTools } from "./session-tools.ts";

/** The language servers of `live`, made and attached on the first call. */
export function languageServersOf(live: LiveSession): LanguageServers {
  const attached = live.languageServers;
  if (attached) return attached;
  const settings = live.settings.lsp;
  const servers = languageServers({
    settings: settings === false ? undefined : settings,
    roots: live.agent.workspace.roots,
    async sandbox() {
      if (live.sandbox.mode === "off" || live.mode === "yolo") return undefined;
      const availability = await live.sandbox.availability();
      return availability.available ? live.sandbox.spec(true) : undefined;
    },
    mayRunUnconfined: () => live.mode === "yolo",
    async missingSandbox() {
      if (live.sandbox.mode === "off") return "the sandbox setting is off (turn it on, or use yolo mode)";
      const availability = await live.sandbox.availability();
      return availability.available ? "the sandbox could not be prepared" : `this machine lacks ${availability.missing} (or use yolo mode)`;
    },
    serverStarted: () => live.offerTools(sessionTools(live)),
  });
  live.attachLanguageServers(servers);
  return servers;
}
