/**
 * A seccomp filter that refuses Unix-domain sockets (and io_uring, which can
 * open sockets without the `socket` call) inside the sandbox. A network
 * namespace of its own stops IP, but a socket that lives as a file — the
 * container daemon's, the session bus, an SSH agent — is still reachable
 * through the read-only file system, and connecting to one is a way out.
 * `socket(AF_UNIX, …)` fails with EACCES; `socketpair` (pipes between a
 * program's own processes) keeps working.
 *
 * The program is classic BPF, as `bwrap --seccomp FD` reads it: one
 * `struct sock_filter` (u16 code, u8 jt, u8 jf, u32 k) after another, in the
 * machine's byte order. It checks the calling architecture first, so a
 * 32-bit program on a 64-bit kernel meets its own call numbers.
 * @module
 */

/** Where `struct seccomp_data` keeps what the filter reads. */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

const AUDIT_ARCH = { x86_64: 0xc000003e, i386: 0x40000003, aarch64: 0xc00000b7, arm: 0x40000028 } as const;
const X32_BIT = 0x40000000;
const AF_UNIX = 1;
const EACCES = 13;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
/** The same number on every architecture (the shared table of newer calls). */
const IO_URING_SETUP = 425;

/** Call numbers of `socket` per architecture, and i386's `socketcall`, whose arguments sit behind a pointer. */
const SOCKET = { x86_64: 41, i386: 359, aarch64: 198, arm: 281 } as const;
const I386_SOCKETCALL = 102;

type Step =
  | { op: "load"; offset: number }
  | { op: "jump-if"; value: number; then: string; else?: string }
  | { op: "return"; value: number }
  | { label: string };

/** The filter's steps; `else` missing means the next step. */
const PROGRAM: Step[] = [
  { op: "load", offset: ARCH },
  { op: "jump-if", value: AUDIT_ARCH.x86_64, then: "x86_64" },
  { op: "jump-if", value: AUDIT_ARCH.i386, then: "i386" },
  { op: "jump-if", value: AUDIT_ARCH.aarch64, then: "aarch64" },
  { op: "jump-if", value: AUDIT_ARCH.arm, then: "arm", else: "allow" },
  { label: "x86_64" },
  { op: "load", offset: NR },
  { op: "jump-if", value: SOCKET.x86_64, then: "socket" },
  { op: "jump-if", value: X32_BIT | SOCKET.x86_64, then: "socket" },
  { op: "jump-if", value: X32_BIT | IO_URING_SETUP, then: "refuse", else: "common" },
  { label: "i386" },
  { op: "load", offset: NR },
  // socketcall carries its arguments behind a pointer the filter cannot read: refused whole.
  { op: "jump-if", value: I386_SOCKETCALL, then: "refuse" },
  { op: "jump-if", value: SOCKET.i386, then: "socket", else: "common" },
  { label: "aarch64" },
  { op: "load", offset: NR },
  { op: "jump-if", value: SOCKET.aarch64, then: "socket", else: "common" },
  { label: "arm" },
  { op: "load", offset: NR },
  { op: "jump-if", value: SOCKET.arm, then: "socket", else: "common" },
  { label: "common" },
  { op: "jump-if", value: IO_URING_SETUP, then: "refuse", else: "allow" },
  { label: "socket" },
  { op: "load", offset: ARG0_LOW },
  { op: "jump-if", value: AF_UNIX, then: "refuse", else: "allow" },
  { label: "allow" },
  { op: "return", value: RET_ALLOW },
  { label: "refuse" },
  { op: "return", value: RET_ERRNO | EACCES },
];

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const RET_K = 0x06;

/** The filter as `bwrap --seccomp` reads it. */
export function unixSocketFilter(): Uint8Array {
  const instructions = PROGRAM.filter((step): step is Exclude<Step, { label: string }> => !("label" in step));
  const at = new Map<string, number>();
  let index = 0;
  for (const step of PROGRAM) {
    if ("label" in step) at.set(step.label, index);
    else index++;
  }
  const bytes = new Uint8Array(instructions.length * 8);
  const view = new DataView(bytes.buffer);
  const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  instructions.forEach((step, i) => {
    // Jumps count the steps to skip after the next one; a BPF jump only goes forward, at most 255.
    const skip = (label: string | undefined) => {
      if (label === undefined) return 0;
      const distance = at.get(label)! - (i + 1);
      if (!(distance >= 0 && distance <= 255)) throw new Error(`socket filter: jump to ${label} out of range`);
      return distance;
    };
    const [code, jt, jf, k] =
      step.op === "load" ? [LD_W_ABS, 0, 0, step.offset] : step.op === "return" ? [RET_K, 0, 0, step.value] : [JEQ_K, skip(step.then), skip(step.else), step.value];
    view.setUint16(i * 8, code, littleEndian);
    view.setUint8(i * 8 + 2, jt);
    view.setUint8(i * 8 + 3, jf);
    view.setUint32(i * 8 + 4, k >>> 0, littleEndian);
  });
  return bytes;
}
