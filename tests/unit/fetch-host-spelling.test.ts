/**
 * One host, many spellings: a rule, an "always" answer or a `fetch.allowHosts`
 * entry written one way must meet a URL written another — case, trailing
 * dots, an explicit or default port, IDN or punycode, full-width letters and
 * dots. A table of known spellings, then a seeded property test generating
 * them (ACP_EDGE_HOST_SEED replays a seed); each checks the gate through the
 * fetch tool's own `access`, as a call meets it.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { SettingsSchema, type ApprovalMode, type PermissionRule } from "../../src/config/settings-schema.ts";
import { offerGrants, type Grant } from "../../src/permissions/grants.ts";
import { evaluatePolicy } from "../../src/permissions/policy.ts";
import { hostAllowed } from "../../src/runtime/fetch/allowed-hosts.ts";
import { sameOrigin } from "../../src/runtime/fetch/host-key.ts";
import type { Workspace } from "../../src/tools/types.ts";
import { createFetchTool } from "../../src/tools/web/fetch.ts";
import { prng } from "../fuzz/session-file-mutations.ts";

const tool = createFetchTool({ allowHosts: [] });
const hostOf = (url: string) => tool.access!({ url }, undefined as unknown as Workspace).host!;
const decide = async (url: string, mode: ApprovalMode, rules: PermissionRule[] = [], grants: Grant[] = []) =>
  (await evaluatePolicy({ toolName: "fetch", access: { class: "fetch", host: hostOf(url) }, mode, rules, grants, cwd: "/p", roots: ["/p"] })).decision;
const deny = (host: string): PermissionRule => ({ action: "deny", host });

describe("a deny rule meets every spelling of its host", () => {
  const table: Array<[rule: string, url: string]> = [
    ["evil.example", "https://evil.example./"],
    ["evil.example", "https://evil.example../x"],
    ["evil.example.", "https://EVIL.example/"],
    ["EVIL.EXAMPLE", "http://evil.example:8080/"],
    ["port.example:443", "https://port.example/"],
    ["port.example:443", "https://PORT.example.:443/"],
    ["port.example:443", "http://port.example:443/"],
    ["port.example:80", "http://port.example/"],
    ["bücher.example", "https://xn--bcher-kva.example/"],
    ["xn--bcher-kva.example", "https://bücher.example/"],
    ["BÜCHER.example.", "https://Bücher.Example/"],
    ["XN--BCHER-KVA.EXAMPLE:443", "https://bücher.example./"],
    ["*.bücher.example", "https://www.xn--bcher-kva.example./"],
    ["*.EVIL.example.", "https://a.b.evil.example/"],
    ["ｅｖｉｌ.example", "https://evil.example/"],
    ["evil.example", "https://ｅｖｉｌ。example/"],
    ["[::1]:8080", "http://[0:0::1]:8080/"],
    ["127.0.0.1", "http://2130706433/"],
    // An IPv4 address in its IPv6 forms: the mapped one is that host; the others carry it.
    ["93.184.215.14", "http://[::ffff:93.184.215.14]/"],
    ["93.184.215.14", "http://[::FFFF:5db8:D70E]/"],
    ["93.184.215.14", "http://[0:0:0:0:0:ffff:5db8:d70e]:80/"],
    ["93.184.215.14:443", "https://[0000::ffff:93.184.215.14]/"],
    ["93.184.215.14", "http://[::93.184.215.14]/"],
    ["93.184.215.14", "http://[::ffff:0:5db8:d70e]/"],
    ["93.184.215.14", "http://[64:ff9b::93.184.215.14]/"],
    ["93.184.215.14", "http://[64:ff9b::5db8:d70e]:8080/"],
    ["93.184.215.14", "http://[2002:5db8:d70e::1]/"],
    ["[::ffff:93.184.215.14]", "http://93.184.215.14/"],
    ["[::ffff:5db8:d70e]:80", "http://1572394766/"],
    ["[64:ff9b::5db8:d70e]", "http://93.184.215.14/"],
    ["[2002:5db8:d70e::]", "http://[64:ff9b::93.184.215.14]/"],
  ];
  for (const [rule, url] of table) {
    test(`deny "${rule}" refuses ${url}`, async () => {
      expect(v.safeParse(SettingsSchema, { permissionRules: [deny(rule)] }).success).toBe(true);
      expect(await decide(url, "yolo", [deny(rule)])).toBe("deny");
    });
  }

  test("an allow rule spelled longer does not outrank a deny for the same host", async () => {
    expect(await decide("https://bücher.example/", "yolo", [{ action: "allow", host: "xn--bcher-kva.example" }, deny("bücher.example")])).toBe("deny");
    expect(await decide("https://evil.example/", "yolo", [{ action: "allow", host: "EVIL.EXAMPLE..." }, deny("evil.example")])).toBe("deny");
    expect(await decide("https://evil.example/", "read-only", [{ action: "allow", host: "Evil.Example." }, { action: "ask", host: "evil.example" }])).toBe("deny");
  });

  test("a rule still names one host and one port: other hosts and ports are not refused", async () => {
    expect(await decide("http://port.example/", "yolo", [deny("port.example:443")])).toBe("allow");
    expect(await decide("https://port.example:8443/", "yolo", [deny("port.example:443")])).toBe("allow");
    expect(await decide("https://notevil.example/", "yolo", [deny("evil.example")])).toBe("allow");
    expect(await decide("https://bucher.example/", "yolo", [deny("bücher.example")])).toBe("allow");
    expect(await decide("https://evil.example/", "yolo", [deny("*.evil.example")])).toBe("allow");
  });

  test("an always answer covers its host in every spelling, and only its port", async () => {
    const { allow, reject } = offerGrants({ class: "fetch", tool: "fetch", paths: [], host: hostOf("https://Bücher.example./"), roots: [] }, undefined);
    expect(await decide("https://xn--bcher-kva.example:443/", "yolo", [], [reject])).toBe("deny");
    expect(await decide("https://BÜCHER.EXAMPLE/", "ask", [], [allow!])).toBe("allow");
    expect(await decide("http://bücher.example/", "ask", [], [allow!])).toBe("ask");
    expect(await decide("http://bücher.example/", "yolo", [], [reject])).toBe("allow");
  });

  test("an always answer kept before hosts carried their port: a refusal still covers every port, an allowance only the default ones", async () => {
    const legacy = (effect: "allow" | "deny"): Grant => ({ effect, class: "fetch", scope: { kind: "host", host: "old.example" }, label: "kept by an earlier version" });
    expect(await decide("https://old.example/", "yolo", [], [legacy("deny")])).toBe("deny");
    expect(await decide("http://OLD.example.:8080/", "yolo", [], [legacy("deny")])).toBe("deny");
    expect(await decide("https://old.example/", "ask", [], [legacy("allow")])).toBe("allow");
    expect(await decide("http://old.example/", "ask", [], [legacy("allow")])).toBe("allow");
    expect(await decide("https://old.example:8443/", "ask", [], [legacy("allow")])).toBe("ask");
  });

  test("an allowance on an IPv4 address reaches its mapped form (the same host), never the addresses built around it", async () => {
    const allow: PermissionRule = { action: "allow", host: "93.184.215.14" };
    expect(await decide("http://[::ffff:5db8:d70e]/", "read-only", [allow])).toBe("allow");
    for (const url of ["http://[64:ff9b::5db8:d70e]/", "http://[2002:5db8:d70e::1]/", "http://[::93.184.215.14]/", "http://[::ffff:0:5db8:d70e]/"]) {
      expect(await decide(url, "read-only", [allow]), url).toBe("deny");
    }
    // An allowance on the NAT64 form does not reach the IPv4 host either, and a deny on either side wins.
    expect(await decide("http://93.184.215.14/", "read-only", [{ action: "allow", host: "[64:ff9b::5db8:d70e]" }])).toBe("deny");
    expect(await decide("http://[64:ff9b::5db8:d70e]/", "yolo", [{ action: "allow", host: "[64:ff9b::5db8:d70e]" }, deny("93.184.215.14")])).toBe("deny");
    expect(hostAllowed(new URL("http://[::ffff:127.0.0.1]:3000/"), ["127.0.0.1:3000"])).toBe(true);
    expect(hostAllowed(new URL("http://[64:ff9b::7f00:1]:3000/"), ["127.0.0.1:3000"])).toBe(false);
    expect(hostAllowed(new URL("http://[2002:7f00:1::]:3000/"), ["127.0.0.1:3000"])).toBe(false);
  });

  test("an always answer on an IPv4 address: a reject covers its IPv6 forms, an allow only the mapped one", async () => {
    const { allow, reject } = offerGrants({ class: "fetch", tool: "fetch", paths: [], host: hostOf("http://93.184.215.14/"), roots: [] }, undefined);
    for (const url of ["http://[::ffff:93.184.215.14]/", "http://[64:ff9b::5db8:d70e]/", "http://[2002:5db8:d70e::]/", "http://[::93.184.215.14]/"]) {
      expect(await decide(url, "yolo", [], [reject]), url).toBe("deny");
    }
    expect(await decide("http://[::ffff:5db8:d70e]/", "ask", [], [allow!])).toBe("allow");
    expect(await decide("http://[64:ff9b::5db8:d70e]/", "ask", [], [allow!])).toBe("ask");
    const nat64 = offerGrants({ class: "fetch", tool: "fetch", paths: [], host: hostOf("http://[64:ff9b::5db8:d70e]/"), roots: [] }, undefined);
    expect(await decide("http://93.184.215.14/", "yolo", [], [nat64.reject])).toBe("deny");
    expect(await decide("http://93.184.215.14/", "ask", [], [nat64.allow!])).toBe("ask");
  });

  test("fetch.allowHosts entries meet every spelling, ports included", () => {
    expect(hostAllowed(new URL("http://DOCS.internal.:8080/"), ["docs.internal:8080"])).toBe(true);
    expect(hostAllowed(new URL("https://docs.internal/"), ["Docs.Internal.:443"])).toBe(true);
    expect(hostAllowed(new URL("http://docs.internal/"), ["docs.internal:443"])).toBe(false);
    expect(hostAllowed(new URL("http://xn--bcher-kva.internal/"), ["bücher.internal"])).toBe(true);
  });

  test("the same origin is the same scheme, host and effective port", () => {
    const same = (a: string, b: string) => sameOrigin(new URL(a), new URL(b));
    expect(same("https://h.example/a", "http://h.example/b")).toBe(false);
    expect(same("https://h.example:8443/a", "http://h.example:8443/b")).toBe(false);
    expect(same("http://h.example/a", "https://h.example/b")).toBe(false);
    expect(same("http://h.example/a", "http://H.EXAMPLE.:80/b")).toBe(true);
    expect(same("https://bücher.example/", "https://xn--bcher-kva.example:443/")).toBe(true);
    expect(same("https://h.example/", "https://h.example:444/")).toBe(false);
  });
});

const SEED = Number(process.env.ACP_EDGE_HOST_SEED ?? 20261206);
const NAMES: Array<{ unicode: string; ascii: string }> = [
  { unicode: "evil.example", ascii: "evil.example" },
  { unicode: "bücher.example", ascii: "xn--bcher-kva.example" },
  { unicode: "münchen.example.org", ascii: "xn--mnchen-3ya.example.org" },
  { unicode: "exämple.test", ascii: "xn--exmple-cua.test" },
];
const FULL_WIDTH_OFFSET = 0xff41 - 0x61;

/** One random but faithful spelling of `name`: the URL parser reads it back as the same host. */
function spell(name: { unicode: string; ascii: string }, next: () => number): string {
  let text = next() < 0.5 ? name.unicode : name.ascii;
  text = [...text].map((c) => (next() < 0.4 ? c.toUpperCase() : c)).join("");
  // Full-width ASCII letters and the ideographic full stop map to the plain ones.
  text = [...text].map((c) => (/[a-z]/.test(c) && next() < 0.1 ? String.fromCodePoint(c.codePointAt(0)! + FULL_WIDTH_OFFSET) : c === "." && next() < 0.1 ? "。" : c)).join("");
  if (next() < 0.4) text += ".";
  return text;
}

test(`seeded spellings (seed ${SEED}): a deny rule or an always-reject in one spelling refuses a URL in another; a rule for another host or port does not`, async () => {
  const next = prng(SEED);
  for (let i = 0; i < 600; i++) {
    const name = NAMES[Math.floor(next() * NAMES.length)]!;
    const scheme = next() < 0.5 ? "http" : "https";
    const port = scheme === "https" ? "443" : "80";
    const urlPort = next() < 0.3 ? `:${port}` : "";
    const url = `${scheme}://${spell(name, next)}${urlPort}/path`;
    const ruleText = spell(name, next) + (next() < 0.5 ? `:${port}` : "");
    const rule = next() < 0.2 ? `*.${ruleText}` : ruleText;
    const target = rule.startsWith("*.") ? url.replace("://", "://sub.") : url;
    const replay = `seed ${SEED}, case ${i}: rule "${rule}", url ${target}`;
    expect(v.safeParse(SettingsSchema, { permissionRules: [deny(rule)] }).success, replay).toBe(true);
    expect(await decide(target, "yolo", [deny(rule)]), replay).toBe("deny");
    expect(hostAllowed(new URL(target), [rule.replace(/^\*\./, "sub.")]), replay).toBe(true);
    // An "always reject" answered on one spelling of the URL refuses another.
    const answered = `${scheme}://${spell(name, next)}${next() < 0.5 ? `:${port}` : ""}/other`;
    const { reject } = offerGrants({ class: "fetch", tool: "fetch", paths: [], host: hostOf(answered), roots: [] }, undefined);
    expect(await decide(url, "yolo", [], [reject]), `${replay}, answered on ${answered}`).toBe("deny");
    // The same rule for another port, or another name, leaves the host alone.
    const otherPort = `${spell(name, next)}:${scheme === "https" ? "8443" : "8080"}`;
    expect(await decide(target, "yolo", [deny(otherPort)]), replay).toBe("allow");
    expect(await decide(target, "yolo", [deny(`x${spell(name, next)}`)]), replay).toBe("allow");
  }
});

/** One random spelling of the IPv4 address `bytes` in a URL: `same` when it is that very host, not an address built around it. */
function spellIPv4(bytes: number[], next: () => number): { host: string; same: boolean } {
  const word = (hi: number, lo: number) => {
    const hex = ((hi << 8) | lo).toString(16);
    return (next() < 0.3 ? hex.padStart(4, "0") : hex)[next() < 0.5 ? "toUpperCase" : "toLowerCase"]();
  };
  const [a, b, c, d] = bytes as [number, number, number, number];
  const dotted = bytes.join(".");
  const tail = next() < 0.5 ? dotted : `${word(a, b)}:${word(c, d)}`;
  const zeros = (n: number) => (next() < 0.5 ? "::" : `${Array(n).fill(next() < 0.5 ? "0" : "0000").join(":")}:`);
  const forms: Array<() => { host: string; same: boolean }> = [
    () => ({ host: dotted, same: true }),
    () => ({ host: String((((a << 24) | (b << 16) | (c << 8) | d) >>> 0)), same: true }),
    () => ({ host: `0x${(((a << 24) | (b << 16) | (c << 8) | d) >>> 0).toString(16)}`, same: true }),
    () => ({ host: `[${zeros(5)}${next() < 0.5 ? "ffff" : "FFFF"}:${tail}]`, same: true }),
    () => ({ host: `[::${tail}]`, same: false }),
    () => ({ host: `[::ffff:0:${tail}]`, same: false }),
    () => ({ host: `[64:ff9b::${tail}]`, same: false }),
    () => ({ host: `[2002:${word(a, b)}:${word(c, d)}::${next() < 0.5 ? "1" : ""}]`, same: false }),
  ];
  return forms[Math.floor(next() * forms.length)]!();
}

test(`seeded IPv4 spellings (seed ${SEED}): a deny rule or an always-reject meets every IPv6 form of the address; an allowance only the same host`, async () => {
  const next = prng(SEED);
  for (let i = 0; i < 600; i++) {
    // Away from 0.0.0.x, whose compatible form would be :: or ::1.
    const bytes = [1 + Math.floor(next() * 254), Math.floor(next() * 256), Math.floor(next() * 256), Math.floor(next() * 256)];
    const target = spellIPv4(bytes, next);
    const rule = spellIPv4(bytes, next);
    const url = `http://${target.host}/path`;
    const replay = `seed ${SEED}, case ${i}: rule "${rule.host}", url ${url}`;
    expect(v.safeParse(SettingsSchema, { permissionRules: [deny(rule.host)] }).success, replay).toBe(true);
    expect(await decide(url, "yolo", [deny(rule.host)]), replay).toBe("deny");
    const { allow, reject } = offerGrants({ class: "fetch", tool: "fetch", paths: [], host: hostOf(`http://${rule.host}/`), roots: [] }, undefined);
    expect(await decide(url, "yolo", [], [reject]), replay).toBe("deny");
    // An allowance reaches the URL only when both name the very same host.
    const sameHost = (target.same && rule.same) || new URL(url).hostname === new URL(`http://${rule.host}/`).hostname;
    if (sameHost) {
      expect(await decide(url, "read-only", [{ action: "allow", host: rule.host }]), replay).toBe("allow");
      expect(await decide(url, "ask", [], [allow!]), replay).toBe("allow");
      expect(hostAllowed(new URL(url), [rule.host]), replay).toBe(true);
    } else if (!sameHost) {
      expect(await decide(url, "read-only", [{ action: "allow", host: rule.host }]), replay).toBe("deny");
      expect(await decide(url, "ask", [], [allow!]), replay).toBe("ask");
      expect(hostAllowed(new URL(url), [rule.host]), replay).toBe(false);
    }
    // Another address is left alone.
    const other = spellIPv4([bytes[0]!, bytes[1]!, bytes[2]!, (bytes[3]! + 1) % 256], next);
    expect(await decide(url, "yolo", [deny(other.host)]), replay).toBe("allow");
  }
});
