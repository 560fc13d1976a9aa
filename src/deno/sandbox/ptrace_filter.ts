/**
 * A seccomp filter (classic BPF, for bubblewrap's `--seccomp`) under which `ptrace`,
 * `process_vm_readv`, `process_vm_writev` and `pidfd_getfd` fail with `EPERM`, for the machine's own
 * architecture and its 32-bit compatible one (x86_64 and i386, x32 refused whole; aarch64 and
 * arm). Every other system call is allowed. Inside a session, a command runs as the same user as
 * the supervisor, bubblewrap and the warm shell, which sit outside the command's cgroup: one that
 * could trace them could run anything there, past the process and memory limits. `/proc` is
 * read-only, so `/proc/<pid>/mem` cannot be written either. `fallocate` fails with
 * `EOPNOTSUPP`, as on a file system without it (glibc's `posix_fallocate` then writes the
 * blocks): with `FALLOC_FL_KEEP_SIZE` it allocates disk past the file's size, where RLIMIT_FSIZE
 * does not look, and without it it allocates a whole `fileMiB` per file at once, which would let
 * many processes pass the workspace's disk bound (`diskMiB`, measured every second) by far
 * before it is measured; written blocks come at the disk's speed. io_uring, whose operations (its
 * own fallocate among them) bypass a seccomp filter, fails with `EPERM`. `undefined` on other
 * architectures.
 *
 * @param arch The architecture (`Deno.build.arch`).
 * @returns The filter's bytes (struct sock_filter, little-endian), or `undefined`.
 */
export function ptraceFilter(arch: string): Uint8Array | undefined {
  const families = FAMILIES[arch];
  if (families === undefined) return undefined;
  // Instructions as [code, jt, jf, k]; `DENY` and `FALLOC` are resolved to their blocks at the end.
  const program: Array<[number, number | "DENY" | "FALLOC", number, number]> = [
    [LD_ABS, 0, 0, ARCH_OFFSET],
  ];
  for (const { audit, calls, fallocate, refuseFrom } of families) {
    const block = 3 + (refuseFrom === undefined ? 0 : 1) + calls.length;
    // Not this architecture: skip its block (the accumulator still holds the architecture).
    program.push([JEQ, 0, block, audit]);
    program.push([LD_ABS, 0, 0, NR_OFFSET]);
    if (refuseFrom !== undefined) program.push([JGE, "DENY", 0, refuseFrom]);
    for (const nr of calls) program.push([JEQ, "DENY", 0, nr]);
    program.push([JEQ, "FALLOC", 0, fallocate]);
    program.push([RET, 0, 0, ALLOW]);
  }
  program.push([RET, 0, 0, ALLOW]);
  // fallocate, whatever its mode.
  const falloc = program.length;
  program.push([RET, 0, 0, ERRNO_EOPNOTSUPP]);
  const deny = program.length;
  program.push([RET, 0, 0, ERRNO_EPERM]);
  const target = { DENY: deny, FALLOC: falloc };
  const bytes = new Uint8Array(program.length * 8);
  const view = new DataView(bytes.buffer);
  program.forEach(([code, jt, jf, k], at) => {
    view.setUint16(at * 8, code, true);
    view.setUint8(at * 8 + 2, typeof jt === "string" ? target[jt] - at - 1 : jt);
    view.setUint8(at * 8 + 3, jf);
    view.setUint32(at * 8 + 4, k, true);
  });
  return bytes;
}

const LD_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const RET = 0x06; // BPF_RET | BPF_K
const NR_OFFSET = 0; // struct seccomp_data: nr, arch, ...
const ARCH_OFFSET = 4;
const ALLOW = 0x7fff0000; // SECCOMP_RET_ALLOW
const ERRNO_EPERM = 0x00050000 | 1; // SECCOMP_RET_ERRNO | EPERM
const ERRNO_EOPNOTSUPP = 0x00050000 | 95; // SECCOMP_RET_ERRNO | EOPNOTSUPP

interface Family {
  readonly audit: number;
  readonly calls: readonly number[];
  readonly fallocate: number;
  readonly refuseFrom?: number;
}

// io_uring_setup, io_uring_enter, io_uring_register (the same numbers on every ABI): its
// operations (a fallocate among them) run without passing through this filter.
const IO_URING = [425, 426, 427];

// ptrace, process_vm_readv, process_vm_writev, pidfd_getfd (another process's file descriptors,
// under the same permission as ptrace) per ABI, and io_uring.
const FAMILIES: Record<string, readonly Family[]> = {
  x86_64: [
    // x32 system calls are numbered from 0x40000000: refused whole.
    {
      audit: 0xc000003e,
      calls: [101, 310, 311, 438, ...IO_URING],
      fallocate: 285,
      refuseFrom: 0x40000000,
    },
    { audit: 0x40000003, calls: [26, 347, 348, 438, ...IO_URING], fallocate: 324 }, // i386
  ],
  aarch64: [
    { audit: 0xc00000b7, calls: [117, 270, 271, 438, ...IO_URING], fallocate: 47 },
    { audit: 0x40000028, calls: [26, 376, 377, 438, ...IO_URING], fallocate: 352 }, // arm
  ],
};

/**
 * The bytes as a `printf %b` argument: each one a `\0NNN` octal escape (NUL included, which no
 * shell variable can hold).
 *
 * @returns The escaped text.
 */
export function printfEscaped(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += `\\0${byte.toString(8).padStart(3, "0")}`;
  return text;
}
