/**
 * The sandbox's seccomp program, run by a small classic-BPF interpreter over
 * seeded calls: on every architecture the kernel may report, `socket` with
 * AF_UNIX and `io_uring_setup` are refused with EACCES, i386's `socketcall`
 * is refused whole, and every other call (other socket families,
 * `socketpair`, anything else) is allowed. The kernel itself runs it in the
 * end-to-end sandbox tests.
 */
import { expect, test } from "bun:test";
import { unixSocketFilter } from "../../src/runtime/sandbox/socket-filter.ts";
import { prng } from "../fuzz/session-file-mutations.ts";

const ALLOW = 0x7fff0000;
const EACCES = 0x00050000 | 13;
const ARCH = { x86_64: 0xc000003e, i386: 0x40000003, aarch64: 0xc00000b7, arm: 0x40000028, other: 0xc0000028 };
const SOCKET: Record<string, number[]> = { x86_64: [41, 0x40000000 | 41], i386: [359], aarch64: [198], arm: [281], other: [] };
const SOCKETPAIR: Record<string, number[]> = { x86_64: [53], i386: [360], aarch64: [199], arm: [288], other: [] };

/** Runs the program on one call, as the kernel's seccomp would (loads, equality jumps and returns only). */
function run(program: Uint8Array, call: { arch: number; nr: number; arg0: number }): number {
  const view = new DataView(program.buffer, program.byteOffset, program.byteLength);
  const data = new DataView(new ArrayBuffer(64));
  data.setUint32(0, call.nr, true);
  data.setUint32(4, call.arch, true);
  data.setUint32(16, call.arg0, true);
  let accumulator = 0;
  for (let pc = 0, steps = 0; pc * 8 < program.length; pc++, steps++) {
    if (steps > program.length) throw new Error("the program loops");
    const [code, jt, jf, k] = [view.getUint16(pc * 8, true), view.getUint8(pc * 8 + 2), view.getUint8(pc * 8 + 3), view.getUint32(pc * 8 + 4, true)];
    if (code === 0x20) accumulator = data.getUint32(k, true);
    else if (code === 0x15) pc += accumulator === k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected instruction ${code.toString(16)}`);
  }
  throw new Error("the program ran off its end");
}

const program = unixSocketFilter();

test("socket(AF_UNIX) and io_uring_setup are refused on every architecture; other families and socketpair are not", () => {
  for (const [name, arch] of Object.entries(ARCH)) {
    for (const nr of SOCKET[name]!) {
      expect({ name, nr, verdict: run(program, { arch, nr, arg0: 1 }) }).toEqual({ name, nr, verdict: EACCES });
      for (const family of [2, 10, 16, 17]) expect(run(program, { arch, nr, arg0: family })).toBe(ALLOW);
    }
    for (const nr of SOCKETPAIR[name]!) expect(run(program, { arch, nr, arg0: 1 })).toBe(ALLOW);
    if (name !== "other") expect(run(program, { arch, nr: 425, arg0: 0 })).toBe(EACCES);
  }
  expect(run(program, { arch: ARCH.i386, nr: 102, arg0: 1 })).toBe(EACCES);
  expect(run(program, { arch: ARCH.x86_64, nr: 0x40000000 | 425, arg0: 0 })).toBe(EACCES);
});

const SEED = Number(process.env.ACP_EDGE_FILTER_SEED ?? 20261206);

test(`seeded calls (seed ${SEED}): refused exactly when they open a Unix socket, set up io_uring, or are i386's socketcall`, () => {
  const next = prng(SEED);
  const names = Object.keys(ARCH) as Array<keyof typeof ARCH>;
  for (let i = 0; i < 20_000; i++) {
    const name = names[Math.floor(next() * names.length)]!;
    const special = [...SOCKET[name]!, ...SOCKETPAIR[name]!, 425, 102];
    const nr = next() < 0.5 ? special[Math.floor(next() * special.length)]! : Math.floor(next() * 0x50000000);
    const arg0 = next() < 0.5 ? 1 : Math.floor(next() * 2 ** 32);
    const refused =
      (SOCKET[name]!.includes(nr) && arg0 === 1) ||
      (name !== "other" && (nr === 425 || (name === "x86_64" && nr === (0x40000000 | 425)))) ||
      (name === "i386" && nr === 102);
    expect({ name, nr, arg0, verdict: run(program, { arch: ARCH[name], nr, arg0 }) }).toEqual({ name, nr, arg0, verdict: refused ? EACCES : ALLOW });
  }
});
