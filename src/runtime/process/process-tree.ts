/**
 * Everything a spawned command started, and ending all of it.
 *
 * A tree is the process group its leader heads, plus (Linux, through /proc)
 * every process whose environment carries the tree's marker entry
 * `ACP_EDGE_CALL=<random id>`, which every descendant inherits even after it
 * left the group (`setsid`, `nohup … &`, double forks), plus the children of
 * all of those (a child that cleared its environment is still found while
 * its parent lives). What escapes: a process that clears or rewrites its
 * environment, leaves the group and whose parent has exited; processes of
 * another user (setuid programs) whose environment cannot be read. Without
 * /proc (macOS) a tree is its process group only.
 *
 * Every tree is tracked until it is seen gone; when this process exits, the
 * trees still tracked get SIGKILL, so no call outlives the agent that ran it.
 * @module
 */
import process from "node:process";
import { environmentHas, readProcTable, startTicksOf, type ProcEntry } from "./proc-table.ts";

/** The environment variable naming the tree a process belongs to. */
export const TREE_MARKER_VARIABLE = "ACP_EDGE_CALL";

/** Signals a tree can be sent. */
export type KillSignal = "SIGTERM" | "SIGKILL";

/** Default time a tree gets to exit after SIGTERM before SIGKILL. */
export const TERMINATE_GRACE_MS = 2000;
/** How long `terminate` waits for a SIGKILLed tree to disappear. */
const SIGKILL_WAIT_MS = 1000;
const POLL_MS = 20;
/** SIGKILL rescans this often at most, to catch children forked between a scan and the kill. */
const KILL_PASSES = 10;

/** Control over the whole tree of a spawned process. */
export interface ProcessTreeControl {
  /** Signals every process of the tree (the leader's group without /proc). */
  killTree(signal?: KillSignal): void;
  /** Whether any process of the tree still runs; zombies do not count. */
  treeAlive(): boolean;
  /** SIGTERM to the tree, SIGKILL to whatever is left after `graceMs`; resolves once it is gone (or SIGKILL was not enough in time). */
  terminate(graceMs?: number): Promise<void>;
}

/** A fresh marker value; the spawner puts `TREE_MARKER_VARIABLE=<value>` into the leader's environment. */
export function newTreeMarker(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Trees not yet seen gone; this process's exit kills them. */
const tracked = new Set<Tree>();
let exitHookInstalled = false;

/**
 * Tracks the tree of `leader`, started with `marker` in its environment;
 * `exited` settles when the leader has exited. `fallbackKill` signals the leader alone when its group cannot be signalled.
 */
export function trackProcessTree(
  leader: number,
  marker: string,
  exited: Promise<unknown>,
  fallbackKill: (signal: KillSignal) => void,
): ProcessTreeControl {
  const tree = new Tree(leader, `${TREE_MARKER_VARIABLE}=${marker}`, fallbackKill);
  tracked.add(tree);
  // A tree that ended on its own is forgotten, so its group id, once reused, is never signalled.
  void exited.then(() => tree.forgetIfGone());
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", killTrackedTrees);
  }
  return {
    killTree: (signal = "SIGTERM") => tree.signal(signal),
    treeAlive: () => tree.alive(),
    terminate: (graceMs = TERMINATE_GRACE_MS) => tree.terminate(graceMs),
  };
}

/** SIGKILLs every tree still tracked: the agent is exiting. Synchronous, so it can run in an exit handler. */
function killTrackedTrees(): void {
  for (const tree of tracked) tree.signal("SIGKILL");
  tracked.clear();
}

class Tree {
  /** Processes older than the leader cannot descend from it, so their environment is not read. */
  readonly #leaderStart: number;

  constructor(
    readonly leader: number,
    readonly markerEntry: string,
    readonly fallbackKill: (signal: KillSignal) => void,
  ) {
    this.#leaderStart = startTicksOf(leader) ?? 0;
  }

  /** The pids of the tree now, or undefined when there is no process table to read. */
  members(): number[] | undefined {
    const table = readProcTable();
    if (!table) return undefined;
    const running = table.filter((p) => p.state !== "Z" && p.pid !== process.pid);
    const found = new Set<number>();
    for (const p of running) {
      const candidate = !(p.startTicks < this.#leaderStart);
      if (p.pgrp === this.leader || (candidate && environmentHas(p.pid, this.markerEntry))) found.add(p.pid);
    }
    return [...withDescendants(found, running)];
  }

  signal(signal: KillSignal): void {
    let members = this.members();
    if (members === undefined) {
      this.signalGroup(signal);
      return;
    }
    for (let pass = 1; members.length > 0; pass++) {
      for (const pid of members) sendSignal(pid, signal);
      if (signal === "SIGTERM") {
        // A stopped process handles SIGTERM only once continued.
        for (const pid of members) sendSignal(pid, "SIGCONT");
        return;
      }
      if (pass >= KILL_PASSES) return;
      // Whatever was forked between the scan and the kill is in the next scan.
      members = this.members() ?? [];
    }
  }

  alive(): boolean {
    const members = this.members();
    if (members !== undefined) return members.length > 0;
    try {
      process.kill(-this.leader, 0);
      return true;
    } catch (error) {
      return (error as { code?: string }).code === "EPERM";
    }
  }

  async terminate(graceMs: number): Promise<void> {
    if (this.alive()) {
      this.signal("SIGTERM");
      if (!(await this.waitGone(graceMs))) {
        this.signal("SIGKILL");
        // SIGKILL is delivered asynchronously: wait (briefly) until the tree is really gone.
        if (!(await this.waitGone(SIGKILL_WAIT_MS))) return;
      }
    }
    tracked.delete(this);
  }

  forgetIfGone(): void {
    if (!this.alive()) tracked.delete(this);
  }

  /** Polls until the tree is gone (true) or `ms` have passed (false). */
  private async waitGone(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      if (!this.alive()) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  private signalGroup(signal: KillSignal): void {
    try {
      process.kill(-this.leader, signal);
    } catch (error) {
      if ((error as { code?: string }).code !== "ESRCH") this.fallbackKill(signal);
    }
  }
}

/** `roots` plus every running descendant of them by parent pid. */
function withDescendants(roots: Set<number>, running: ProcEntry[]): Set<number> {
  const children = new Map<number, number[]>();
  for (const p of running) {
    const list = children.get(p.ppid);
    if (list) list.push(p.pid);
    else children.set(p.ppid, [p.pid]);
  }
  const queue = [...roots];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    for (const child of children.get(pid) ?? []) {
      if (roots.has(child)) continue;
      roots.add(child);
      queue.push(child);
    }
  }
  return roots;
}

function sendSignal(pid: number, signal: KillSignal | "SIGCONT"): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone meanwhile, or not ours
  }
}
