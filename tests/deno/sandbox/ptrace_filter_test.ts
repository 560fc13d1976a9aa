import { assert, assertEquals, assertMatch } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { printfEscaped, ptraceFilter } from "../../../src/deno/sandbox/ptrace_filter.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;

// Runs a classic BPF seccomp program the way the kernel does, for the four kinds of instruction
// the filter uses (any other is a failure of the test); `mode` is fallocate's second argument.
function run(program: Uint8Array, nr: number, arch: number, mode = 0): number {
  const view = new DataView(program.buffer, program.byteOffset, program.byteLength);
  let a = 0;
  for (let pc = 0; pc < program.length / 8;) {
    const [code, jt, jf, k] = [
      view.getUint16(pc * 8, true),
      view.getUint8(pc * 8 + 2),
      view.getUint8(pc * 8 + 3),
      view.getUint32(pc * 8 + 4, true),
    ];
    if (code === 0x20) a = k === 0 ? nr : k === 4 ? arch : k === 24 ? mode : NaN;
    else if (code === 0x15) pc += a === k ? jt : jf;
    else if (code === 0x35) pc += a >= k ? jt : jf;
    else if (code === 0x45) pc += (a & k) !== 0 ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected instruction ${code}`);
    pc++;
  }
  throw new Error("the program ran off its end");
}

Deno.test("ptraceFilter() refuses ptrace, process_vm_readv/writev and pidfd_getfd on each ABI of x86_64 and aarch64, and allows the rest", () => {
  const cases: Array<[string, number, number[], number[]]> = [
    ["x86_64", 0xc000003e, [101, 310, 311, 0x40000000, 0x40000000 + 521], [
      0,
      1,
      59,
      100,
      102,
      309,
    ]],
    ["x86_64", 0x40000003, [26, 347, 348, 438], [0, 1, 11, 101, 310]],
    ["aarch64", 0xc00000b7, [117, 270, 271, 438], [0, 63, 64, 101, 221, 434]],
    ["aarch64", 0x40000028, [26, 376, 377, 438], [0, 3, 117]],
  ];
  for (const [name, arch, refused, allowed] of cases) {
    const program = ptraceFilter(name)!;
    for (const nr of refused) assertEquals(run(program, nr, arch), EPERM, `${name} ${nr}`);
    for (const nr of allowed) assertEquals(run(program, nr, arch), ALLOW, `${name} ${nr}`);
    // Another architecture's calls are not this filter's business.
    assertEquals(run(program, 101, 0x12345678), ALLOW);
  }
  assertEquals(ptraceFilter("riscv64"), undefined);
});

Deno.test("ptraceFilter() refuses fallocate in every mode (EOPNOTSUPP) on each ABI", () => {
  const EOPNOTSUPP = 0x00050000 | 95;
  const cases: Array<[string, number, number]> = [
    ["x86_64", 0xc000003e, 285],
    ["x86_64", 0x40000003, 324],
    ["aarch64", 0xc00000b7, 47],
    ["aarch64", 0x40000028, 352],
  ];
  for (const [name, arch, nr] of cases) {
    const program = ptraceFilter(name)!;
    // KEEP_SIZE (1), alone or with PUNCH_HOLE (2): disk past the size, where RLIMIT_FSIZE is
    // blind; plain fallocate (0): a whole fileMiB at once per file, faster than the disk bound
    // is measured.
    for (const mode of [0, 1, 3]) assertEquals(run(program, nr, arch, mode), EOPNOTSUPP, name);
    // Another call with that argument is not concerned.
    assertEquals(run(program, 0, arch, 1), ALLOW, name);
    // io_uring, whose own fallocate would pass by this filter, is refused whole.
    for (const call of [425, 426, 427]) assertEquals(run(program, call, arch), EPERM, name);
  }
});

Deno.test("printfEscaped() gives bash's printf %b every byte back, NUL included", async () => {
  const bytes = ptraceFilter("x86_64")!;
  const all = new Uint8Array([...bytes, ...Array.from({ length: 256 }, (_, i) => i)]);
  const { stdout, success } = await new Deno.Command("bash", {
    args: ["-c", 'printf %b "$1"', "bash", printfEscaped(all)],
  }).output();
  assert(success);
  assertEquals(stdout, all);
});

Deno.test({
  name: "a sandboxed command cannot trace the supervisor or its own children (ptrace is refused)",
  ignore: skipWithoutBwrap(),
  async fn() {
    const nr = { x86_64: 101, aarch64: 117 }[Deno.build.arch as string];
    if (nr === undefined) return; // No filter here: documented.
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_ptrace_" }));
    const router = new ToolRouter({ builtins: builtinTools({ workspace, bash: true }) });
    try {
      const tools = await router.expose({ builtins: ["bash"] });
      const run = async (command: string) =>
        JSON.parse(await tools.invoke("bash", JSON.stringify({ command }))) as {
          stdout: string;
          exitCode: number;
        };
      await run("true"); // the session
      // PTRACE_ATTACH (16) on every process of the sandbox but the shell itself; perl's syscall
      // says -1 and the errno, or 0 when attached (then ends, which detaches).
      const result = await run(
        `sleep 5 & for p in $(ls /proc | grep -E '^[0-9]+$'); do [ $p = $$ ] && continue; ` +
          `[ -r /proc/$p/comm ] || continue; perl -e '$r = syscall(${nr}, 16, $ARGV[0], 0, 0); ` +
          `print "$ARGV[0] $ARGV[1] r=$r errno=", $!+0, "\\n"' $p "$(cat /proc/$p/comm)"; done; kill %1`,
      );
      const lines = result.stdout.trim().split("\n").filter((line) => line.includes(" r="));
      assert(lines.some((line) => / deno r=/.test(line)), `the supervisor was tried: ${lines}`);
      assert(lines.some((line) => / sleep r=/.test(line)), `a child was tried: ${lines}`);
      assert(lines.length >= 3, `the attack ran on several processes: ${lines}`);
      for (const line of lines) assertMatch(line, / r=-1 errno=1$/, "refused with EPERM");
    } finally {
      await router.close();
    }
  },
});
