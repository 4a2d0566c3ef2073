/**
 * The ACP Registry manifest and icon, and the validator's own rules: the
 * checked-in files pass and match package.json; a release manifest for the
 * five platforms passes; and each broken variant (of the kinds the registry
 * rejects) fails, so a passing run means something.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
// @ts-expect-error: plain ES modules of the build scripts, without type declarations
import { baseManifest, ICON_PATH, MANIFEST_PATH, manifestText } from "../../scripts/registry-manifest.mjs";
// @ts-expect-error: see above
import { releaseManifest, TARGETS } from "../../scripts/release-archives.mjs";
// @ts-expect-error: see above
import { iconProblems, launchProblems, manifestProblems } from "../../scripts/validate-registry.mjs";
import { ROOT } from "../helpers/agent-process.ts";

const version: string = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
const manifest = JSON.parse(readFileSync(MANIFEST_PATH, "utf8"));
const icon = readFileSync(ICON_PATH, "utf8");

function release() {
  const archives = Object.entries(TARGETS as Record<string, { platform: string; kind: string; executable: string }>).map(([name, t]) => ({
    ...t,
    file: `acp-edge-${version}-${name}.${t.kind}`,
    sha256: "a".repeat(64),
  }));
  return releaseManifest(`https://downloads.example/acp-edge/releases/v${version}/`, archives);
}

describe("registry manifest", () => {
  test("the checked-in manifest is made from package.json and passes", () => {
    expect(readFileSync(MANIFEST_PATH, "utf8")).toBe(manifestText(baseManifest()));
    expect(manifest.version).toBe(version);
    expect(manifest.distribution.npx).toEqual({ package: `acp-edge@${version}`, args: ["agent", "stdio"] });
    expect(manifestProblems(manifest, version)).toEqual([]);
  });

  test("a release manifest covers the five platforms with pinned archives and their sha256", () => {
    const full = release();
    expect(Object.keys(full.distribution.binary).sort()).toEqual(["darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64", "windows-x86_64"]);
    expect(manifestProblems(full, version)).toEqual([]);
    expect(full.distribution.binary["windows-x86_64"].cmd).toBe("./acp-edge.exe");
    expect(full.distribution.binary["windows-x86_64"].archive).toEndWith("/acp-edge-" + version + "-windows-x64.zip");
  });

  test("what the registry rejects is rejected", () => {
    const broken: Array<[string, (m: any) => void]> = [
      ["id", (m) => (m.id = "ACP_edge")],
      ["version", (m) => (m.version = "latest")],
      ["package.json", (m) => (m.version = "9.9.9")],
      ["pin", (m) => (m.distribution.npx.package = "acp-edge@latest")],
      ["pin", (m) => (m.distribution.npx.package = "acp-edge")],
      ["kind", (m) => (m.distribution.docker = { image: "x" })],
      ["field", (m) => (m.distribution.npx.extra = true)],
      ["distribution", (m) => (m.distribution = {})],
      ["repository", (m) => (m.repository = "not a url")],
    ];
    for (const [what, change] of broken) {
      const copy = structuredClone(manifest);
      change(copy);
      expect({ what, problems: manifestProblems(copy, version).length > 0 }).toEqual({ what, problems: true });
    }
    const binaries: Array<(m: any) => void> = [
      (m) => delete m.distribution.binary["windows-x86_64"],
      (m) => (m.distribution.binary["linux-x86_64"].archive = "https://downloads.example/releases/latest/x.tar.gz"),
      (m) => (m.distribution.binary["linux-x86_64"].archive = "https://downloads.example/releases/v0.0.1/x.tar.gz"),
      (m) => (m.distribution.binary["linux-x86_64"].sha256 = "ABC"),
      (m) => (m.distribution.binary["freebsd-x86_64"] = { archive: "https://x/y.tar.gz", cmd: "./a" }),
      (m) => delete m.distribution.binary["darwin-aarch64"].cmd,
      (m) => (m.distribution.binary["windows-x86_64"].archive = "https://x/setup.msi"),
    ];
    for (const change of binaries) {
      const copy = release();
      change(copy);
      expect(manifestProblems(copy, version).length).toBeGreaterThan(0);
    }
  });
});

describe("registry icon", () => {
  test("the checked-in icon passes: 16x16, monochrome with currentColor", () => {
    expect(iconProblems(icon)).toEqual([]);
  });

  test("what the registry rejects is rejected", () => {
    const variants = [
      icon.replace(/currentColor/g, "#ff0000"),
      icon.replace('fill="currentColor"', 'fill="red"'),
      icon.replace('fill="currentColor"', 'style="fill: #123456"'),
      icon.replace('width="16" height="16" viewBox="0 0 16 16"', 'width="24" height="24" viewBox="0 0 24 24"'),
      icon.replace("<path", "<!-- a comment --><path"),
      icon.replace("</svg>", ""),
      icon.replace(/fill="currentColor"/g, ""),
      `${icon}<svg/>`,
      icon.replace("<path", '<linearGradient id="g"><stop stop-color="#fff"/></linearGradient><path'),
    ];
    for (const variant of variants) expect({ variant, problems: iconProblems(variant).length > 0 }).toEqual({ variant, problems: true });
  });
});

describe("registry launch check", () => {
  /** A stand-in agent: answers `initialize` the way `answer` says, then behaves as `after` says at the end of input. */
  const agent = (answer: string, after = "process.exit(0)") => [
    "-e",
    `let b="";process.stdin.on("data",d=>{b+=d;if(b.includes("\\n")&&!globalThis.done){globalThis.done=1;${answer}}});process.stdin.on("end",()=>{${after}})`,
  ];
  const good = `process.stdout.write(JSON.stringify({jsonrpc:"2.0",id:1,result:{protocolVersion:1,authMethods:[{id:"a",name:"A"}]}})+"\\n")`;

  test("a well-behaved agent passes; each way of failing the registry is caught", async () => {
    const node = process.execPath.endsWith("bun") ? "node" : process.execPath;
    expect(await launchProblems("good", node, agent(good), ROOT, 20)).toEqual([]);
    const failing: Array<[string, string[], string]> = [
      ["banner", agent(`process.stdout.write("starting up\\n");${good}`), "not JSON"],
      ["no methods", agent(`process.stdout.write(JSON.stringify({jsonrpc:"2.0",id:1,result:{authMethods:[]}})+"\\n")`), "no auth method"],
      ["env var only", agent(`process.stdout.write(JSON.stringify({jsonrpc:"2.0",id:1,result:{authMethods:[{id:"e",name:"E",type:"env_var"}]}})+"\\n")`), "no auth method"],
      ["error", agent(`process.stdout.write(JSON.stringify({jsonrpc:"2.0",id:1,error:{code:-32603,message:"x"}})+"\\n")`), "initialize failed"],
      ["chatter after", agent(`${good};process.stdout.write("done\\n")`), "not JSON-RPC"],
      ["exit code", agent(good, "process.exit(3)"), "exit code 3"],
      ["path shown", agent(`process.stdout.write(JSON.stringify({jsonrpc:"2.0",id:1,result:{authMethods:[{id:"a",name:"A",description:"keys in "+process.env.HOME}]}})+"\\n")`), "path of the machine"],
      ["silent", agent("", "setInterval(()=>{},1000)"), "no answer to initialize within 2 s"],
    ];
    for (const [what, args, expected] of failing) {
      const problems: string[] = await launchProblems(what, node, args, ROOT, 2);
      expect({ what, found: problems.some((p) => p.includes(expected)) }).toEqual({ what, found: true });
    }
  }, 60_000);
});
