// Decision 8 of the third security round: disk per sandbox session. Files were bounded one by
// one (fileMiB) and /tmp was bounded, but many files each under fileMiB filled the workspace. A
// session's commands now add at most bash.limits.diskMiB to it: the command that passes the bound
// is stopped with a clear error, later commands are refused until files are deleted, and a
// background process that passes it is stopped.
import { assert, assertEquals, assertFalse, assertStringIncludes } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";
import { exists } from "../../../_helpers/exists.ts";

async function usedMiB(dir: string): Promise<number> {
  const out = await new Deno.Command("du", { args: ["-skx", dir], stdout: "piped" }).output();
  return Number.parseInt(new TextDecoder().decode(out.stdout), 10) / 1024;
}

Deno.test({
  name:
    "a session's commands cannot fill the workspace with many files under fileMiB: the command past diskMiB is stopped, the next refused until files are deleted, a background writer stopped",
  ignore: skipWithoutBwrap(),
  async fn() {
    const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_diskbound_" }));
    try {
      await using router = new ToolRouter({
        builtins: builtinTools({
          workspace: ws,
          commandTimeoutMs: 120_000,
          bash: { sandbox: "bwrap", limits: { fileMiB: 8, diskMiB: 16 } },
        }),
      });
      const tools = await router.expose({ builtins: ["bash", "apply_patch"] });
      assertFalse((await tools.call("bash", { command: "true" })).isError);
      // fallocate would take a whole fileMiB per file at once, faster than any measure: refused.
      const fast = await tools.call("bash", {
        command: "for i in $(seq 1 50); do fallocate -l 7M a$i 2>/dev/null; done; echo $?",
      });
      assertFalse(fast.isError, fast.text);
      assertEquals(JSON.parse(fast.text).stdout, "1\n");
      assert(await usedMiB(ws) < 1);
      // The attack: 40 files of 4 MiB each (every one under fileMiB), 160 MiB in all.
      const attack = await tools.call("bash", {
        command:
          "for i in $(seq 1 40); do yes abcdefgh | head -c 4M > f$i || exit; sleep 0.2; done",
      });
      // It ran: files were written, past the bound (16 MiB is four of them).
      assert(await exists(`${ws}/f5`), "the attack wrote past the bound");
      // Contained: stopped with the figures, long before its 160 MiB.
      assert(attack.isError, attack.text);
      assertEquals(attack.code, "tool_error");
      assertStringIncludes(attack.text, "more than its disk bound (bash.limits.diskMiB: 16 MiB)");
      assertFalse(await exists(`${ws}/f40`), "the command ran to its end");
      assert(await usedMiB(ws) < 80, `${await usedMiB(ws)} MiB written`);
      // The next command is refused, saying what to do.
      const next = await tools.call("bash", { command: "echo ran > marker" });
      assert(next.isError);
      assertStringIncludes(next.text, "refused until files are deleted");
      assertFalse(await exists(`${ws}/marker`));
      // Deleting files (the way the message names) lets commands run again.
      const names: string[] = [];
      for await (const entry of Deno.readDir(ws)) names.push(entry.name);
      const patch = `*** Begin Patch\n${
        names.map((name) => `*** Delete File: ${name}\n`).join("")
      }*** End Patch`;
      const deleted = await tools.call("apply_patch", { patch });
      assertFalse(deleted.isError, deleted.text);
      const again = await tools.call("bash", { command: "echo ran" });
      assertFalse(again.isError, again.text);
      // A background process that keeps writing is stopped at the bound.
      const started = await tools.call("bash", {
        action: "start",
        command: "for i in $(seq 1 40); do yes abcdefgh | head -c 4M > g$i; sleep 0.2; done",
      });
      assertFalse(started.isError, started.text);
      const { processId } = JSON.parse(started.text);
      for (let i = 0; i < 300; i++) {
        const status = JSON.parse(
          (await tools.call("bash", { action: "status", processId })).text,
        );
        if (!status.running) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert(await exists(`${ws}/g5`), "the background writer wrote past the bound");
      assertFalse(await exists(`${ws}/g40`), "the background writer ran to its end");
      const after = await tools.call("bash", { command: "true" });
      assert(after.isError);
      assertStringIncludes(after.text, "refused until files are deleted");
    } finally {
      await Deno.remove(ws, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "the file tools' writes count toward diskMiB too: many write_file calls with no command between them cannot fill the workspace",
  ignore: skipWithoutBwrap(),
  async fn() {
    const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_diskwrites_" }));
    try {
      await using router = new ToolRouter({
        builtins: builtinTools({
          workspace: ws,
          bash: { sandbox: "bwrap", limits: { diskMiB: 1 } },
        }),
      });
      const tools = await router.expose({ builtins: ["write_file", "apply_patch", "bash"] });
      const content = "abcdefgh".repeat(32 * 1024); // 256 KiB
      // The attack: 20 files of 256 KiB (5 MiB) by write_file alone, no command in between.
      const results = [];
      for (let i = 0; i < 20; i++) {
        results.push(await tools.call("write_file", { path: `w${i}.txt`, content }));
      }
      const written = results.filter((result) => !result.isError).length;
      // It ran: writes went through up to the bound (1 MiB is four of them).
      assert(written >= 4, `${written} writes went through`);
      assert(await exists(`${ws}/w3.txt`), "the attack wrote");
      // Contained: the writes past the bound were refused with the figures, and stay refused.
      const refused = results.filter((result) => result.isError);
      assert(refused.length >= 10, `${refused.length} writes refused`);
      assertEquals(refused[0].code, "tool_error");
      assertStringIncludes(refused[0].text, "diskMiB: 1 MiB");
      assertFalse(await exists(`${ws}/w19.txt`));
      assert(await usedMiB(ws) < 2, `${await usedMiB(ws)} MiB written`);
      // Deleting files makes room again.
      const patch = [
        "*** Begin Patch",
        "*** Delete File: w0.txt",
        "*** Delete File: w1.txt",
        "*** Delete File: w2.txt",
        "*** End Patch",
      ].join("\n");
      assertFalse((await tools.call("apply_patch", { patch })).isError);
      const after = await tools.call("write_file", { path: "small.txt", content: "ok\n" });
      assertFalse(after.isError, after.text);
    } finally {
      await Deno.remove(ws, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a write right after a command that passed diskMiB is refused: the command's call returns only once what it wrote is measured",
  ignore: skipWithoutBwrap(),
  async fn() {
    const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_diskafter_" }));
    try {
      await using router = new ToolRouter({
        builtins: builtinTools({
          workspace: ws,
          bash: { sandbox: "bwrap", limits: { fileMiB: 8, diskMiB: 1 } },
        }),
      });
      const tools = await router.expose({ builtins: ["write_file", "bash"] });
      assertFalse((await tools.call("bash", { command: "true" })).isError);
      // The attack: one quick command writes 3 MiB (past the bound, under fileMiB), then at once
      // a file tool writes more.
      const command = await tools.call("bash", { command: "head -c 3M /dev/urandom > big" });
      assertEquals((await Deno.stat(`${ws}/big`)).size, 3 * 1024 * 1024, command.text);
      const write = await tools.call("write_file", { path: "more.txt", content: "x".repeat(4096) });
      // Contained: the write is refused with the figures, and writes nothing.
      assert(write.isError, write.text);
      assertEquals(write.code, "tool_error");
      assertStringIncludes(write.text, "diskMiB: 1 MiB");
      assertFalse(await exists(`${ws}/more.txt`));
    } finally {
      await Deno.remove(ws, { recursive: true });
    }
  },
});
