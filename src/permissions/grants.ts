/**
 * "Always allow" and "always reject" answers, kept with the session for its
 * whole lifetime. A grant has an explicit scope, and its label states that
 * scope in the words the user clicked.
 * @module
 */
import { containingRoot, isWithin } from "../runtime/files/path.ts";
import type { CommandLine, SimpleCommand } from "./command-line.ts";
import { allowCovers, readCommandPattern, refusalCovers } from "./command-match.ts";
import { hostText, readHostPattern, sameCarried } from "../runtime/fetch/host-key.ts";

/** A host in the one spelling grants are kept and compared in (see host-key.ts); text that is no host stays as it is. */
function normalHost(host: string): string {
  const read = readHostPattern(host);
  return read ? hostText(read) : host;
}

/**
 * Whether a grant's host is the target's: the same name and the same port, in any spelling; a host that
 * cannot be read meets none. Grants kept before hosts carried their port name none: such a refusal covers
 * every port of the name (never looser than it was), such an allowance only the web's default ports.
 * A refusal also meets a host carrying the same IPv4 address (see host-key.ts); an allowance never does.
 */
function sameHost(granted: string, target: string, allowing: boolean): boolean {
  const a = readHostPattern(granted);
  const b = readHostPattern(target);
  // A refusal also covers the IPv6 forms built around its IPv4 address (NAT64, 6to4, …), and they it.
  if (a === undefined || b === undefined || (a.name !== b.name && (allowing || !sameCarried(a, b)))) return false;
  if (a.port !== undefined) return a.port === b.port;
  return !allowing || b.port === undefined || b.port === "80" || b.port === "443";
}

export type GrantScope =
  /** Anywhere inside the session's directories. */
  | { kind: "roots" }
  /** Under one directory. */
  | { kind: "path"; prefix: string }
  /** These simple commands, in shell syntax (each may be followed by more arguments). */
  | { kind: "command"; prefixes: string[] }
  /** One tool, whatever its arguments (tools that are neither file nor command tools, e.g. MCP tools). */
  | { kind: "tool"; name: string }
  /** One host the `fetch` tool reaches (`name` or `name:port`). */
  | { kind: "host"; host: string };

export interface Grant {
  effect: "allow" | "deny";
  class: "read" | "edit" | "execute" | "fetch" | "other";
  scope: GrantScope;
  /** The option name the user picked, e.g. "Always allow edits in this session". */
  label: string;
}

export interface GrantTarget {
  class: "read" | "edit" | "execute" | "fetch" | "other";
  tool: string;
  /** Real (symlink-resolved) paths. */
  paths: string[];
  command?: CommandLine;
  /** The host a `fetch` reaches. */
  host?: string;
  roots: readonly string[];
}

function covers(grant: Grant, target: GrantTarget, allowing: boolean): boolean {
  if (grant.class !== target.class) return false;
  const { scope } = grant;
  switch (scope.kind) {
    case "roots":
      return target.paths.length > 0 && target.paths.every((p) => containingRoot(p, target.roots) !== undefined);
    case "path":
      return target.paths.length > 0 && target.paths.every((p) => isWithin(p, scope.prefix));
    case "tool":
      return scope.name === target.tool;
    case "host":
      return target.host !== undefined && sameHost(scope.host, target.host, allowing);
    case "command": {
      const line = target.command;
      if (!line) return false;
      const patterns = scope.prefixes.map(readCommandPattern).filter((p) => p !== undefined);
      // Allowing needs a fully accounted line with every simple command covered; rejecting needs one, in any spelling.
      if (allowing) {
        return line.unaccounted.length === 0 && line.commands.length > 0 && line.commands.every((c) => patterns.some((p) => allowCovers(c, p)));
      }
      const refused = (c: SimpleCommand) => patterns.some((p) => refusalCovers(c, p));
      return line.commands.some(refused) || line.possible.some(refused);
    }
  }
}

/** The grant that decides this target, if any: a matching reject wins over an allow. */
export function matchGrant(grants: readonly Grant[], target: GrantTarget): Grant | undefined {
  return grants.find((g) => g.effect === "deny" && covers(g, target, false)) ?? grants.find((g) => g.effect === "allow" && covers(g, target, true));
}

/** Grants to offer for an "always" answer, or undefined when an always-allow would be unsafe to honour. */
export function offerGrants(target: GrantTarget, outsideDir: string | undefined): { allow?: Grant; reject: Grant } {
  if (target.class === "fetch") {
    const host = normalHost(target.host ?? "");
    const scope: GrantScope = { kind: "host", host };
    return {
      allow: { effect: "allow", class: "fetch", scope, label: `Always allow fetching from ${host} in this session` },
      reject: { effect: "deny", class: "fetch", scope, label: `Always reject fetching from ${host} in this session` },
    };
  }
  if (target.class === "other") {
    const scope: GrantScope = { kind: "tool", name: target.tool };
    return {
      allow: { effect: "allow", class: "other", scope, label: `Always allow ${target.tool} in this session` },
      reject: { effect: "deny", class: "other", scope, label: `Always reject ${target.tool} in this session` },
    };
  }
  if (target.class === "execute") {
    const line = target.command;
    const prefixes = line?.commands.map((c) => c.text) ?? [];
    const shown = prefixes.join(" && ");
    const reject: Grant = { effect: "deny", class: "execute", scope: { kind: "command", prefixes }, label: `Always reject \`${shown}\` in this session` };
    // A line that is not fully accounted for is never offered an "always allow": it could not be honoured safely.
    if (!line || line.unaccounted.length > 0 || prefixes.length === 0) return { reject };
    return { allow: { effect: "allow", class: "execute", scope: { kind: "command", prefixes }, label: `Always allow \`${shown}\` in this session` }, reject };
  }
  const noun = target.class === "edit" ? "edits" : "reading files";
  if (outsideDir) {
    const scope: GrantScope = { kind: "path", prefix: outsideDir };
    return {
      allow: { effect: "allow", class: target.class, scope, label: `Always allow ${noun} in ${outsideDir} in this session` },
      reject: { effect: "deny", class: target.class, scope, label: `Always reject ${noun} in ${outsideDir} in this session` },
    };
  }
  return {
    allow: { effect: "allow", class: target.class, scope: { kind: "roots" }, label: `Always allow ${noun} in this session` },
    reject: { effect: "deny", class: target.class, scope: { kind: "roots" }, label: `Always reject ${noun} in this session` },
  };
}
