/**
 * `initialize` params, parsed without the SDK's schemas: only a bad
 * `protocolVersion` (or params that are not an object) fails the request;
 * a capability is granted only by a literal `true`, never by a lookalike.
 */
import { describe, expect, test } from "bun:test";
import { zInitializeRequest } from "../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";
import { parseInitializeParams } from "../../src/acp/params/initialize-params.ts";

const code = (fn: () => unknown): number | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as { code?: number }).code;
  }
};

describe("parseInitializeParams", () => {
  test("a plain request: capabilities as given, absent ones false", () => {
    expect(parseInitializeParams({ protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true }, terminal: true }, clientInfo: { name: "zed", version: "1.0" } })).toEqual({
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: false }, terminal: true, auth: { terminal: false } },
      clientInfo: { name: "zed", version: "1.0" },
    });
    expect(parseInitializeParams({ protocolVersion: 0 }).clientCapabilities).toEqual({ fs: { readTextFile: false, writeTextFile: false }, terminal: false, auth: { terminal: false } });
  });

  test("params that are not an object are refused as invalid params", () => {
    for (const params of [null, undefined, [], "1", 1, true]) expect({ params, code: code(() => parseInitializeParams(params)) }).toEqual({ params, code: -32602 });
  });

  test("a protocolVersion that is not an integer from 0 to 65535 is refused as invalid params", () => {
    const bad = [undefined, null, "1", 1.5, -1, 65_536, Number.NaN, Number.POSITIVE_INFINITY, 1e300, [1], { valueOf: () => 1 }, true];
    for (const protocolVersion of bad) expect({ protocolVersion, code: code(() => parseInitializeParams({ protocolVersion })) }).toEqual({ protocolVersion, code: -32602 });
  });

  test.each([0, 1, 2, 65_535])("protocolVersion %p is accepted (the agent answers with the one it speaks)", (protocolVersion) => {
    expect(parseInitializeParams({ protocolVersion }).protocolVersion).toBe(protocolVersion);
  });

  test("lookalikes grant nothing; malformed parts read as absent", () => {
    const parsed = parseInitializeParams({
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: "true", writeTextFile: 1 }, terminal: "yes", auth: [true], session: "x", elicitation: [], _meta: null },
      clientInfo: { name: 5, version: "1" },
      _meta: "nope",
    });
    expect(parsed).toEqual({
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false, auth: { terminal: false } },
    });
  });

  test("a __proto__ key cannot grant a capability", () => {
    const hostile = JSON.parse('{"protocolVersion":1,"clientCapabilities":{"__proto__":{"terminal":true},"fs":{"__proto__":{"readTextFile":true}}}}');
    const caps = parseInitializeParams(hostile).clientCapabilities;
    expect(caps.terminal).toBe(false);
    expect(caps.fs).toEqual({ readTextFile: false, writeTextFile: false });
  });

  test("a seeded run of random params: a clear answer every time, capabilities only ever booleans", () => {
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647);
    const values = [true, false, 0, 1, -1, 65_536, 1.5, "", "x", null, undefined, [], {}, { readTextFile: true }, [true]];
    const pick = () => values[next() % values.length];
    for (let i = 0; i < 2_000; i += 1) {
      const params = next() % 10 === 0 ? pick() : { protocolVersion: next() % 3 === 0 ? pick() : next() % 70_000, clientCapabilities: { fs: pick(), terminal: pick(), auth: pick() }, clientInfo: pick() };
      try {
        const parsed = parseInitializeParams(params);
        const caps = parsed.clientCapabilities!;
        for (const value of [caps.fs!.readTextFile, caps.fs!.writeTextFile, caps.terminal, caps.auth!.terminal]) expect(typeof value).toBe("boolean");
      } catch (error) {
        expect((error as { code?: number }).code).toBe(-32602);
      }
    }
  });
});

/**
 * Against the SDK's own schema (what answered `initialize` before): for the
 * same params, the same accept/refuse decision, and every capability the
 * agent acts on granted by ours only where the SDK's grants it too.
 */
describe("parseInitializeParams against the SDK's zInitializeRequest", () => {
  /** The capabilities acp-edge reads (client-workspace.ts, session-client.ts), as the agent would see them. */
  const granted = (caps: Record<string, any> | undefined) => ({
    read: caps?.fs?.readTextFile === true,
    write: caps?.fs?.writeTextFile === true,
    terminal: caps?.terminal === true,
    authTerminal: caps?.auth?.terminal === true,
    terminalOutput: caps?._meta?.terminal_output === true,
    compaction: Boolean(caps?.session?.compaction),
    configOptions: Boolean(caps?.session?.configOptions),
    notices: Boolean(caps?.session?.notices),
    elicitationForm: Boolean(caps?.elicitation?.form),
    elicitationUrl: Boolean(caps?.elicitation?.url),
  });
  const ours = (params: unknown) => {
    try {
      return granted(parseInitializeParams(params).clientCapabilities as Record<string, any>);
    } catch {
      return "refused";
    }
  };
  const sdks = (params: unknown) => {
    const parsed = zInitializeRequest.safeParse(params ?? {});
    return parsed.success ? granted(parsed.data.clientCapabilities as Record<string, any>) : "refused";
  };

  test("lookalike session and elicitation capabilities grant nothing, as with the SDK's schema", () => {
    for (const value of ["yes", 1, true, [], [1], ""]) {
      const params = { protocolVersion: 1, clientCapabilities: { session: { compaction: value, configOptions: value, notices: value }, elicitation: { form: value, url: value } } };
      expect({ value, ours: ours(params) }).toEqual({ value, ours: sdks(params) });
    }
  });

  test("a seeded run of random params: the same answer as the SDK's schema", () => {
    let seed = 11;
    const next = () => (seed = (seed * 48271) % 2147483647);
    const leaves = [true, false, 0, 1, "", "x", null, undefined, [], [true], {}];
    const value = (depth: number): unknown => {
      if (depth === 0 || next() % 3 === 0) return leaves[next() % leaves.length];
      const keys = ["fs", "terminal", "auth", "session", "elicitation", "_meta", "readTextFile", "writeTextFile", "compaction", "configOptions", "notices", "form", "url", "terminal_output", "boolean"];
      const out: Record<string, unknown> = {};
      for (let i = next() % 4; i > 0; i -= 1) out[keys[next() % keys.length]!] = value(depth - 1);
      return out;
    };
    for (let i = 0; i < 3_000; i += 1) {
      const params = next() % 20 === 0 ? value(1) : { protocolVersion: next() % 5 === 0 ? value(0) : next() % 3, clientCapabilities: value(3), clientInfo: value(1), _meta: value(1) };
      expect({ params, ours: ours(params) }).toEqual({ params, ours: sdks(params) });
    }
  });
});
