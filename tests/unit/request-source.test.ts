import { describe, expect, test } from "bun:test";
import { requestSourcePolicy, sourceRefusal } from "../../src/server/request-source.ts";
import { Prng } from "../fuzz/transport-prng.ts";

/**
 * Seeded properties of the Host and Origin checks: a request is let through
 * exactly when it is built from an accepted name with nothing around it,
 * whatever hostile fragments the generator puts before or after.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261202);
const LOOPBACK = ["localhost", "LocalHost", "127.0.0.1", "127.1.2.3", "[::1]"];
const FOREIGN = ["evil.example", "localhost.evil.example", "127.0.0.1.nip.io", "10.0.0.1", "[::2]", "0.0.0.0", "example.com", "localhos", "[::ffff:7f00:1]x"];
const AROUND = ["", "", "", "evil.", ".evil", "@evil.example", "evil@", "/x", "#", "?a", " ", "\t", "%2e", ".", ":", "\\", "\u0000", "é"];
const PORTS = ["", ":8711", ":1", ":65535"];

const request = (headers: Record<string, string>) => new Request("http://127.0.0.1:8711/acp", { headers });

describe("where requests come from", () => {
  const policy = requestSourcePolicy(true, ["http://localhost:3000", "https://ide.example"]);

  test("Host: loopback names with any port pass; anything else, or anything around them, is refused", () => {
    const rng = new Prng(SEED, 1);
    for (let i = 0; i < 5000; i += 1) {
      const loopback = rng.chance(0.5);
      const core = rng.pick(loopback ? LOOPBACK : FOREIGN);
      const [before, after] = [rng.pick(AROUND), rng.pick(AROUND)];
      const host = `${before}${core}${rng.pick(PORTS)}${after}`;
      // Headers drop surrounding whitespace, as every HTTP server does.
      const accepted = loopback && before.trim() === "" && after.trim() === "";
      let headers: Record<string, string>;
      try {
        headers = Object.fromEntries(new Headers({ host }).entries());
      } catch {
        continue; // not a header value any client could send
      }
      const refusal = sourceRefusal(request(headers), policy);
      expect({ host, refused: refusal !== undefined }).toEqual({ host, refused: !accepted });
      if (refusal) expect(refusal.status).toBe(403);
    }
  });

  test("Origin: absent, the server's own or an allowed one passes; anything else is refused", () => {
    const rng = new Prng(SEED, 2);
    const SCHEMES = ["http://", "https://", "ftp://", "file://", "", "ws://"];
    const HOSTS = ["localhost:3000", "ide.example", "127.0.0.1:8711", "localhost:8711", "evil.example", "127.0.0.1:8712", "ide.example.evil"];
    const TAILS = ["", "", "", "/", "/path", "?q", "#f", ".evil", "@evil.example", " "];
    const allowed = new Set(["http://localhost:3000", "https://ide.example", "http://127.0.0.1:8711", "https://127.0.0.1:8711"]);
    for (let i = 0; i < 5000; i += 1) {
      const scheme = rng.pick(SCHEMES);
      const host = rng.pick(HOSTS);
      const tail = rng.pick(TAILS);
      const origin = `${scheme}${host}${tail}`;
      const accepted = (tail.trim() === "" || tail === "/") && allowed.has(`${scheme}${host}`);
      const refusal = sourceRefusal(request({ host: "127.0.0.1:8711", origin }), policy);
      expect({ origin, refused: refusal !== undefined }).toEqual({ origin, refused: !accepted });
    }
    expect(sourceRefusal(request({ host: "127.0.0.1:8711" }), policy)).toBeUndefined();
    expect(sourceRefusal(request({ host: "127.0.0.1:8711", origin: "null" }), policy)?.status).toBe(403);
  });

  test("a non-loopback bind answers any Host but still checks Origin", () => {
    const open = requestSourcePolicy(false, []);
    expect(sourceRefusal(request({ host: "agent.example:443" }), open)).toBeUndefined();
    expect(sourceRefusal(request({ host: "agent.example:443", origin: "https://agent.example" }), open)).toBeUndefined();
    expect(sourceRefusal(request({ host: "agent.example", origin: "https://evil.example" }), open)?.status).toBe(403);
  });

  test("allowed origins must be origins", () => {
    for (const bad of ["*", "localhost:3000", "http://localhost:3000/app", "ftp://x", "http://u@x", "https://"]) expect(() => requestSourcePolicy(true, [bad])).toThrow();
  });
});
