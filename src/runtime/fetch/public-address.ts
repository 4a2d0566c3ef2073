/**
 * Whether an IP address is on the public internet. Everything else —
 * loopback, private, link-local (the cloud metadata address 169.254.169.254
 * among them), shared, multicast, reserved, documentation, benchmarking, and
 * IPv6 forms that carry such an IPv4 address (mapped, compatible, NAT64,
 * 6to4) — is not, and neither is anything this module cannot read: the
 * `fetch` tool refuses what is not public unless the user allowed the host.
 * @module
 */

/** Why an address is not public, or undefined when it is. */
export function nonPublicReason(address: string): string | undefined {
  const text = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const v4 = parseIPv4(text);
  if (v4) return ipv4Reason(v4);
  const v6 = parseIPv6(text);
  if (v6) return ipv6Reason(v6);
  return "not an IP address";
}

/** Whether `address` is an IP address literal (IPv4 dotted quad or IPv6, brackets allowed). */
export function isIpLiteral(address: string): boolean {
  const text = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  return parseIPv4(text) !== undefined || parseIPv6(text) !== undefined;
}

// [first address, prefix length, reason]
const V4_RANGES: Array<[number[], number, string]> = [
  [[0, 0, 0, 0], 8, "this network (0.0.0.0/8)"],
  [[10, 0, 0, 0], 8, "private (10/8)"],
  [[100, 64, 0, 0], 10, "shared address space (100.64/10)"],
  [[127, 0, 0, 0], 8, "loopback"],
  [[169, 254, 0, 0], 16, "link-local (169.254/16, the cloud metadata address among them)"],
  [[172, 16, 0, 0], 12, "private (172.16/12)"],
  [[192, 0, 0, 0], 24, "IETF protocol assignments (192.0.0/24)"],
  [[192, 0, 2, 0], 24, "documentation (192.0.2/24)"],
  [[192, 88, 99, 0], 24, "6to4 relay anycast (192.88.99/24)"],
  [[192, 168, 0, 0], 16, "private (192.168/16)"],
  [[198, 18, 0, 0], 15, "benchmarking (198.18/15)"],
  [[198, 51, 100, 0], 24, "documentation (198.51.100/24)"],
  [[203, 0, 113, 0], 24, "documentation (203.0.113/24)"],
  [[224, 0, 0, 0], 4, "multicast"],
  [[240, 0, 0, 0], 4, "reserved or broadcast (240/4)"],
];

function ipv4Reason(bytes: number[]): string | undefined {
  const value = toUint32(bytes);
  for (const [first, bits, reason] of V4_RANGES) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if (((value & mask) >>> 0) === toUint32(first)) return reason;
  }
  return undefined;
}

function ipv6Reason(words: number[]): string | undefined {
  const [w0, w1, w2, w3, w4, w5] = words as [number, number, number, number, number, number, number, number];
  const embedded = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
  const low32 = embedded(words[6]!, words[7]!);
  if (words.every((w) => w === 0)) return "unspecified (::)";
  if (words.slice(0, 7).every((w) => w === 0) && words[7] === 1) return "loopback (::1)";
  if (w0 === 0 && w1 === 0 && w2 === 0 && w3 === 0 && w4 === 0 && (w5 === 0xffff || w5 === 0)) {
    if (w5 === 0) return "IPv4-compatible IPv6 (deprecated)";
    const reason = ipv4Reason(low32);
    return reason ? `IPv4-mapped IPv6 of a non-public address: ${reason}` : undefined;
  }
  if (w0 === 0x64 && w1 === 0xff9b && w2 === 0 && w3 === 0 && w4 === 0 && w5 === 0) {
    const reason = ipv4Reason(low32);
    return reason ? `NAT64 of a non-public IPv4 address: ${reason}` : undefined;
  }
  if (w0 === 0x64 && w1 === 0xff9b) return "local-use NAT64 (64:ff9b:1::/48)";
  if (w0 === 0x2002) {
    const reason = ipv4Reason(embedded(w1, w2));
    return reason ? `6to4 of a non-public IPv4 address: ${reason}` : undefined;
  }
  if (w0 === 0x2001 && w1 === 0) return "Teredo (2001::/32)";
  if (w0 === 0x2001 && w1 === 0xdb8) return "documentation (2001:db8::/32)";
  if (w0 === 0x2001 && w1 >= 0x10 && w1 <= 0x2f) return "ORCHID (2001:10::/28, 2001:20::/28)";
  if ((w0 & 0xfff0) === 0x3ff0) return "documentation (3fff::/20)";
  if ((w0 & 0xfe00) === 0xfc00) return "unique local (fc00::/7)";
  if ((w0 & 0xffc0) === 0xfe80) return "link-local (fe80::/10)";
  if ((w0 & 0xffc0) === 0xfec0) return "site-local (fec0::/10)";
  if ((w0 & 0xff00) === 0xff00) return "multicast (ff00::/8)";
  // Only global unicast (2000::/3) is public; the rest of the space is reserved.
  if ((w0 & 0xe000) !== 0x2000) return "reserved IPv6 space (outside 2000::/3)";
  return undefined;
}

/**
 * The IPv4 address an IPv6 address carries, or undefined: `same` for an
 * IPv4-mapped address (`::ffff:a.b.c.d`, which a socket reaches as that
 * very IPv4 host), not for the forms that are other addresses built around
 * one (IPv4-compatible `::a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`,
 * NAT64 `64:ff9b::/96`, 6to4 `2002::/16`). `::` and `::1` carry none.
 */
export function carriedIPv4(address: string): { ipv4: string; same: boolean } | undefined {
  const text = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const words = parseIPv6(text);
  if (!words) return undefined;
  const dotted = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join(".");
  const [w0, w1, w2, w3, w4, w5, w6, w7] = words as [number, number, number, number, number, number, number, number];
  const zeroHead = w0 === 0 && w1 === 0 && w2 === 0 && w3 === 0;
  if (zeroHead && w4 === 0 && w5 === 0xffff) return { ipv4: dotted(w6, w7), same: true };
  if (zeroHead && w4 === 0 && w5 === 0 && (w6 !== 0 || w7 > 1)) return { ipv4: dotted(w6, w7), same: false };
  if (zeroHead && w4 === 0xffff && w5 === 0) return { ipv4: dotted(w6, w7), same: false };
  if (w0 === 0x64 && w1 === 0xff9b && w2 === 0 && w3 === 0 && w4 === 0 && w5 === 0) return { ipv4: dotted(w6, w7), same: false };
  if (w0 === 0x2002) return { ipv4: dotted(w1, w2), same: false };
  return undefined;
}

function toUint32(bytes: number[]): number {
  return ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
}

/** Strict dotted decimal only: other spellings (octal, hex, short forms) are what URL parsing turns into this. */
function parseIPv4(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    bytes.push(n);
  }
  return bytes;
}

/** Eight 16-bit words, or undefined; accepts `::` and a dotted IPv4 tail, refuses zone ids. */
function parseIPv6(text: string): number[] | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || !text.includes(":")) return undefined;
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const words = (half: string): number[] | undefined => {
    if (half === "") return [];
    const out: number[] = [];
    const pieces = half.split(":");
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (i === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseIPv4(piece);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return undefined;
        out.push(parseInt(piece, 16));
      }
    }
    return out;
  };
  const head = words(halves[0]!);
  const tail = halves.length === 2 ? words(halves[1]!) : [];
  if (!head || !tail) return undefined;
  // A dotted tail only at the very end.
  if (halves.length === 2 && halves[0]!.includes(".")) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}
