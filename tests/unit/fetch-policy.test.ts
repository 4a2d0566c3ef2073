/**
 * The gate for `fetch`, decided by host: rules naming hosts, "always" answers
 * for one host, read-only fetching only what is already allowed; and a
 * project's settings cannot allow hosts.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { mergeProjectSettings } from "../../src/config/settings.ts";
import { SettingsSchema, type ApprovalMode, type PermissionRule } from "../../src/config/settings-schema.ts";
import { offerGrants, type Grant } from "../../src/permissions/grants.ts";
import { evaluatePolicy } from "../../src/permissions/policy.ts";

const decide = (host: string, mode: ApprovalMode, rules: PermissionRule[] = [], grants: Grant[] = []) =>
  evaluatePolicy({ toolName: "fetch", access: { class: "fetch", host }, mode, rules, grants, cwd: "/p", roots: ["/p"] });

describe("the fetch gate", () => {
  test("ask and write ask, naming the host, with an always answer for that host; yolo runs", async () => {
    for (const mode of ["ask", "write"] as const) {
      const verdict = await decide("docs.example.com", mode);
      expect(verdict.decision).toBe("ask");
      if (verdict.decision !== "ask") continue;
      expect(verdict.why).toContain("docs.example.com");
      expect(verdict.offer.allow?.label).toBe("Always allow fetching from docs.example.com in this session");
    }
    expect((await decide("docs.example.com", "yolo")).decision).toBe("allow");
  });

  test("an always answer covers its host only", async () => {
    const { allow, reject } = offerGrants({ class: "fetch", tool: "fetch", paths: [], host: "Docs.Example.com", roots: [] }, undefined);
    expect((await decide("docs.example.com", "ask", [], [allow!])).decision).toBe("allow");
    expect((await decide("docs.example.com:8080", "ask", [], [allow!])).decision).toBe("ask");
    expect((await decide("evil.example.com", "ask", [], [allow!])).decision).toBe("ask");
    expect((await decide("docs.example.com", "yolo", [], [reject])).decision).toBe("deny");
  });

  test("host rules: deny beats allow, wildcards cover subdomains, ports are exact", async () => {
    const rules: PermissionRule[] = [{ action: "allow", host: "*.example.com" }, { action: "deny", host: "secret.example.com" }, { action: "ask", host: "api.example.com:8443" }];
    expect((await decide("docs.example.com", "ask", rules)).decision).toBe("allow");
    expect((await decide("secret.example.com", "yolo", rules)).decision).toBe("deny");
    expect((await decide("api.example.com:8443", "yolo", rules)).decision).toBe("ask");
    expect((await decide("example.org", "ask", rules)).decision).toBe("ask");
    expect((await decide("anything", "yolo", [{ action: "deny", tools: ["fetch"] }])).decision).toBe("deny");
  });

  test("read-only fetches only hosts a rule or an answer already allows", async () => {
    expect((await decide("docs.example.com", "read-only")).decision).toBe("deny");
    expect((await decide("docs.example.com", "read-only", [{ action: "allow", host: "docs.example.com" }])).decision).toBe("allow");
    const { allow } = offerGrants({ class: "fetch", tool: "fetch", paths: [], host: "docs.example.com", roots: [] }, undefined);
    expect((await decide("docs.example.com", "read-only", [], [allow!])).decision).toBe("allow");
    expect((await decide("other.example.com", "read-only", [], [allow!])).decision).toBe("deny");
  });
});

describe("fetch settings", () => {
  test("allowHosts takes hosts and host:port, refuses anything else", () => {
    expect(v.safeParse(SettingsSchema, { fetch: { allowHosts: ["127.0.0.1:3000", "docs.internal", "[::1]:8080"] } }).success).toBe(true);
    for (const bad of ["http://x", "a/b", "x:99999", "", "u@h"]) expect(v.safeParse(SettingsSchema, { fetch: { allowHosts: [bad] } }).success).toBe(false);
  });

  test("a project file cannot allow hosts", () => {
    const merged = mergeProjectSettings({ fetch: { allowHosts: ["docs.internal"] } }, { fetch: { allowHosts: ["127.0.0.1:22"] } }, "project settings");
    expect(merged.fetch).toEqual({ allowHosts: ["docs.internal"] });
    expect(mergeProjectSettings({}, { fetch: { allowHosts: ["127.0.0.1:22"] } }, "project settings").fetch).toBeUndefined();
  });
});
