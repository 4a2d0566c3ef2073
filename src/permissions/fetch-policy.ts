/**
 * The verdict on a `fetch`: which host it reaches decides. A `deny` rule or
 * an "always reject" answer for the host refuses it; `read-only` mode lets
 * it run only on a host an `allow` rule or an "always allow" answer already
 * covers; an `ask` rule asks; an `allow` rule or answer runs it; otherwise
 * `yolo` runs it and every other mode asks, naming the host.
 * @module
 */
import { matchGrant, offerGrants, type GrantTarget } from "./grants.ts";
import type { PolicyInput, PolicyVerdict } from "./policy-types.ts";
import { describeRule, matchHostRules, matchToolRules } from "./rules.ts";
import { readHostPattern } from "../runtime/fetch/host-key.ts";

/** The verdict for one `fetch` call (`input.access.class` is `fetch`). */
export function fetchVerdict(input: PolicyInput): PolicyVerdict {
  const host = input.access.host ?? "";
  // A host no check can read is refused, not guessed at.
  if (readHostPattern(host) === undefined) return { decision: "deny", reason: `"${host}" is not a host that can be fetched.` };
  const target: GrantTarget = { class: "fetch", tool: input.toolName, paths: [], host, roots: input.roots };
  const offer = offerGrants(target, undefined);
  const rule = matchHostRules(input.rules, input.toolName, host) ?? matchToolRules(input.rules, input.toolName);
  if (rule?.rule.action === "deny") {
    return { decision: "deny", reason: `Blocked by the permission rule "${describeRule(rule.rule)}" in settings: fetching from ${host} is not allowed.` };
  }
  const grant = matchGrant(input.grants, target);
  if (grant?.effect === "deny") return { decision: "deny", reason: `Rejected for this session ("${grant.label}"): nothing was fetched from ${host}.` };
  const allowed = rule?.rule.action === "allow" || grant?.effect === "allow";
  if (input.mode === "read-only") {
    return allowed
      ? { decision: "allow", outside: false }
      : { decision: "deny", reason: `Fetching from ${host} is refused in read-only mode: only hosts a permission rule or an "always allow" answer already allows can be fetched. Change the session's mode (read-only, ask, write, auto, yolo) to allow it.` };
  }
  if (rule?.rule.action === "ask") return { decision: "ask", outside: false, why: `the permission rule "${describeRule(rule.rule)}" asks first`, offer };
  if (allowed || input.mode === "yolo") return { decision: "allow", outside: false };
  return { decision: "ask", outside: false, why: `it fetches from ${host}`, offer };
}
