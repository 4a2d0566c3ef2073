/**
 * Watches the agent's DNS lookups: a resolver on a loopback address of its
 * own that records every query name and answers NXDOMAIN (or, for names
 * under a `silentUnder` domain, never answers), and a launcher
 * that runs the agent in a mount namespace of its own whose
 * /etc/resolv.conf names only that resolver. The rest of the machine keeps
 * its resolver. Needs Linux, root and `unshare`; `dnsWatchUnavailable`
 * says why not otherwise.
 */
import { spawnSync } from "node:child_process";
import { createSocket, type Socket } from "node:dgram";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentCommand, ROOT, type Launcher, type RuntimeName } from "./agent-process.ts";

/** Why DNS cannot be watched here, or undefined when it can. */
export function dnsWatchUnavailable(): string | undefined {
  if (process.platform !== "linux") return "watching DNS needs a Linux mount namespace";
  if (process.getuid?.() !== 0) return "watching DNS needs root (a mount namespace and port 53)";
  if (spawnSync("unshare", ["--mount", "true"]).status !== 0) return "unshare --mount is not available";
  return undefined;
}

export interface DnsWatch {
  /** Query names received so far, lowercased, in order. */
  queries: string[];
  /** Whether any query so far names `name` or a name under it. */
  asked(name: string): boolean;
  /** Resolves once a query names `name` or a name under it. */
  whenAsked(name: string): Promise<void>;
  /** Runs `runtime`'s agent with this resolver as its only one. */
  launcher(runtime: RuntimeName): Launcher;
  close(): Promise<void>;
}

/** The query name of a DNS message, or undefined when it cannot be read. */
function queryName(message: Buffer): { name: string; end: number } | undefined {
  const labels: string[] = [];
  let at = 12;
  while (at < message.length) {
    const size = message[at]!;
    if (size === 0) return { name: labels.join(".").toLowerCase(), end: at + 1 };
    if (size > 63 || at + 1 + size > message.length) return undefined;
    labels.push(message.subarray(at + 1, at + 1 + size).toString("latin1"));
    at += 1 + size;
  }
  return undefined;
}

/** NXDOMAIN for the question of `query`. */
function nxdomain(query: Buffer, questionEnd: number): Buffer {
  const answer = Buffer.from(query.subarray(0, questionEnd + 4));
  answer[2] = 0x80 | (query[2]! & 0x01); // a response; recursion desired as asked
  answer[3] = 0x83; // recursion available; NXDOMAIN
  answer.writeUInt16BE(1, 4);
  answer.writeUInt16BE(0, 6);
  answer.writeUInt16BE(0, 8);
  answer.writeUInt16BE(0, 10);
  return answer;
}

export interface DnsWatchOptions {
  /** Queries for names under this domain are recorded and never answered. */
  silentUnder?: string;
  /** How long the agent's resolver waits for an answer (resolv.conf `timeout`, at most 30). */
  resolverTimeoutSeconds?: number;
}

/** Starts the resolver on a random 127.x.y.z address (so watchers do not meet) and writes its resolv.conf. */
export async function startDnsWatch(options: DnsWatchOptions = {}): Promise<DnsWatch> {
  const address = `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
  const socket: Socket = createSocket("udp4");
  const queries: string[] = [];
  const covers = (query: string, name: string) => query === name.toLowerCase() || query.endsWith(`.${name.toLowerCase()}`);
  const waiters: Array<{ name: string; resolve: () => void }> = [];
  socket.on("message", (message, from) => {
    const question = queryName(message);
    if (!question) return;
    queries.push(question.name);
    for (const waiter of waiters.filter((w) => covers(question.name, w.name))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    if (options.silentUnder && covers(question.name, options.silentUnder)) return;
    socket.send(nxdomain(message, question.end), from.port, from.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(53, address, () => resolve());
  });
  const dir = mkdtempSync(join(tmpdir(), "acp-edge-dns-"));
  const resolvConf = join(dir, "resolv.conf");
  writeFileSync(resolvConf, `nameserver ${address}\noptions attempts:1 timeout:${options.resolverTimeoutSeconds ?? 2}\n`);
  return {
    queries,
    asked: (name) => queries.some((q) => covers(q, name)),
    whenAsked: (name) => (queries.some((q) => covers(q, name)) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ name, resolve }))),
    launcher(runtime) {
      const { command, args } = agentCommand(runtime, []);
      // The bind mount exists in the agent's namespace only; `$0` is the file, `$@` the agent's command line.
      return { command: "unshare", args: ["--mount", "sh", "-c", 'mount --bind "$0" /etc/resolv.conf && exec "$@"', resolvConf, command, ...args], cwd: ROOT };
    },
    async close() {
      await new Promise<void>((resolve) => socket.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
