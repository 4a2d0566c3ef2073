/**
 * Whether the filtering proxy may reach a host, and the one address it then
 * connects to. The rule is about the name the client asked for: it must be
 * covered by an entry of `sandbox.allowHosts`. Only then is the name
 * resolved (here, never inside the sandbox), and every address it has is
 * checked: a name that resolves to a loopback, private or otherwise
 * non-public address is refused unless an entry names it exactly (not
 * through `*.domain`), so a DNS answer cannot turn an allowed public name
 * into a door to the machine's own services. The connection goes to the
 * addresses that were checked (in the resolver's order, the next when one
 * refuses), never to a second lookup.
 * @module
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { hostCovers, hostText, readHostPattern, type HostPattern } from "../../fetch/host-key.ts";
import { isIpLiteral, nonPublicReason } from "../../fetch/public-address.ts";

/** Where to connect, or why not (a sentence for the command's output). */
export type TargetDecision = { allowed: true; addresses: CheckedAddress[]; port: number } | { allowed: false; status: 403 | 502; reason: string };

/** An address the decision checked. */
export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a name to its addresses (the system resolver by default; tests pass their own). */
export type Resolver = (name: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolver: Resolver = (name) => dnsLookup(name, { all: true, verbatim: true });

/** The entries as patterns (`*.domain` included); entries that cannot be read allow nothing. */
export function readAllowHosts(entries: readonly string[]): HostPattern[] {
  return entries.flatMap((text) => readHostPattern(text, { wildcard: true }) ?? []);
}

/** Decides `host` (with its port) against `allowed`; resolves the name only when it is covered. */
export async function decideTarget(host: HostPattern, allowed: readonly HostPattern[], resolve: Resolver = systemResolver): Promise<TargetDecision> {
  const named = hostText(host);
  const covering = allowed.filter((entry) => hostCovers(entry, host));
  if (covering.length === 0) return { allowed: false, status: 403, reason: `${named} is not in sandbox.allowHosts` };
  const explicit = covering.some((entry) => !entry.subdomains);
  const port = Number(host.port);
  const bare = host.name.replace(/^\[|\]$/g, "");
  if (isIpLiteral(bare)) {
    const reason = nonPublicReason(bare);
    if (reason && !explicit) return { allowed: false, status: 403, reason: nonPublicRefusal(named, bare, reason) };
    return { allowed: true, addresses: [{ address: bare, family: bare.includes(":") ? 6 : 4 }], port };
  }
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = await resolve(host.name);
  } catch (error) {
    return { allowed: false, status: 502, reason: `${host.name} could not be resolved (${(error as { code?: string }).code ?? "no address"})` };
  }
  if (addresses.length === 0) return { allowed: false, status: 502, reason: `${host.name} has no address` };
  if (!explicit) {
    for (const { address } of addresses) {
      const reason = nonPublicReason(address);
      if (reason) return { allowed: false, status: 403, reason: nonPublicRefusal(named, address, reason) };
    }
  }
  return { allowed: true, addresses: addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 })), port };
}

function nonPublicRefusal(named: string, address: string, reason: string): string {
  return `${named} is allowed only through a *.domain entry and reaches ${address}, not a public address (${reason}); an entry naming the host itself allows that`;
}
