/**
 * The fetch tool's address classifier: every non-public range refused, in
 * IPv4 and IPv6 forms and in the spellings the URL parser normalises, public
 * addresses let through; a seeded fuzz checks IPv4-mapped forms agree with
 * their IPv4 address.
 */
import { describe, expect, test } from "bun:test";
import { hostAllowed, readHostEntry } from "../../src/runtime/fetch/allowed-hosts.ts";
import { nonPublicReason } from "../../src/runtime/fetch/public-address.ts";

const hostOf = (url: string) => new URL(url).hostname;

describe("nonPublicReason", () => {
  test.each([
    "127.0.0.1", "127.255.255.254", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "100.127.255.255",
    "0.0.0.0", "0.1.2.3", "224.0.0.1", "239.255.255.255", "240.0.0.1", "255.255.255.255", "198.18.0.1", "198.19.255.255", "192.0.2.1", "198.51.100.7", "203.0.113.9", "192.0.0.8",
    "::1", "::", "fc00::1", "fd12:3456::1", "fe80::1", "febf::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:169.254.169.254", "::ffff:a9fe:a9fe", "::127.0.0.1",
    "64:ff9b::a9fe:a9fe", "64:ff9b::10.0.0.1", "64:ff9b:1::1", "2002:7f00:1::", "2002:a9fe:a9fe::1", "2001::1", "2001:db8::1", "100::1", "[::1]", "not-an-ip", "1.2.3", "fe80::1%eth0",
  ])("%s is not public", (address) => {
    expect(nonPublicReason(address)).toBeDefined();
  });

  test.each(["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "100.128.0.1", "169.255.0.1", "2606:4700::1111", "2a00:1450:4001::200e", "64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8"])(
    "%s is public",
    (address) => {
      expect(nonPublicReason(address)).toBeUndefined();
    },
  );

  test("other spellings of loopback and metadata, as the URL parser gives them, are refused", () => {
    for (const url of ["http://2130706433/", "http://0177.0.0.1/", "http://0x7f.1/", "http://127.1/", "http://0x7f000001/", "http://[::ffff:127.0.0.1]/", "http://2852039166/", "http://0251.0376.0251.0376/", "http://[0:0:0:0:0:ffff:a9fe:a9fe]/"]) {
      expect(nonPublicReason(hostOf(url))).toBeDefined();
    }
  });

  test("seeded fuzz: an IPv4 address and its IPv4-mapped IPv6 forms get the same answer", () => {
    let seed = 36;
    const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
    for (let i = 0; i < 5000; i++) {
      const bytes = [next(), next(), next(), next()];
      const v4 = bytes.join(".");
      const hex = `${((bytes[0]! << 8) | bytes[1]!).toString(16)}:${((bytes[2]! << 8) | bytes[3]!).toString(16)}`;
      const publicV4 = nonPublicReason(v4) === undefined;
      expect(nonPublicReason(`::ffff:${v4}`) === undefined).toBe(publicV4);
      expect(nonPublicReason(hostOf(`http://[::ffff:${hex}]/`)) === undefined).toBe(publicV4);
      expect(nonPublicReason(hostOf(`http://${(((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0)}/`)) === undefined).toBe(publicV4);
    }
  });

  test("seeded fuzz: NAT64, 6to4, compatible and translated forms of a non-public IPv4 address are never public", () => {
    let seed = 64;
    const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
    // Every range, and random addresses: the forms built around a non-public address must be refused too.
    const firsts = [0, 10, 100, 127, 169, 172, 192, 198, 203, 224, 240, 255];
    for (let i = 0; i < 5000; i++) {
      const bytes = [i % 2 === 0 ? firsts[next() % firsts.length]! : next(), next(), next(), next()];
      if (nonPublicReason(bytes.join(".")) === undefined) continue;
      const hex = `${((bytes[0]! << 8) | bytes[1]!).toString(16)}:${((bytes[2]! << 8) | bytes[3]!).toString(16)}`;
      for (const form of [`[64:ff9b::${hex}]`, `[64:ff9b::${bytes.join(".")}]`, `[2002:${hex}::1]`, `[::${hex}]`, `[::ffff:0:${hex}]`, `[::ffff:${hex}]`]) {
        expect([form, nonPublicReason(hostOf(`http://${form}/`)) === undefined]).toEqual([form, false]);
      }
    }
  });

  test("mapped, translated and NAT64 loopback, 6to4 metadata", () => {
    for (const url of ["http://[::ffff:127.0.0.1]/", "http://[64:ff9b::7f00:1]/", "http://[64:ff9b::127.0.0.1]/", "http://[2002:a9fe:a9fe::]/", "http://[::ffff:0:7f00:1]/", "http://[0:0:0:0:0:ffff:7f00:0001]:8080/"]) {
      expect([url, nonPublicReason(hostOf(url)) === undefined]).toEqual([url, false]);
    }
  });
});

describe("allowHosts entries", () => {
  test("host alone allows every port, host:port one port", () => {
    expect(hostAllowed(new URL("http://docs.internal:8080/x"), ["docs.internal"])).toBe(true);
    expect(hostAllowed(new URL("http://127.0.0.1:3000/"), ["127.0.0.1:3000"])).toBe(true);
    expect(hostAllowed(new URL("http://127.0.0.1:3001/"), ["127.0.0.1:3000"])).toBe(false);
    expect(hostAllowed(new URL("http://[::1]:3000/"), ["[::1]:3000"])).toBe(true);
    expect(hostAllowed(new URL("http://2130706433:3000/"), ["127.0.0.1:3000"])).toBe(true);
    expect(hostAllowed(new URL("http://evil.docs.internal/"), ["docs.internal"])).toBe(false);
  });

  test("entries that are not a host are refused", () => {
    for (const bad of ["", "http://x", "a/b", "user@host", "host:99999", "ho st", "x?y"]) expect(readHostEntry(bad)).toBeUndefined();
  });
});
