import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { startFailure } from "../../../../src/deno/builtins/sandbox/session_exec.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

Deno.test("startFailure() names the limit a failed spawn ran into, and never echoes the supervisor's text", () => {
  assertStringIncludes(
    startFailure({ name: "Error", message: "Resource temporarily unavailable (os error 11)" }),
    "process limit is reached",
  );
  assertStringIncludes(
    startFailure({ name: "Error", message: "Cannot allocate memory (os error 12)" }),
    "memory limit is reached",
  );
  const other = startFailure({ name: "NotFound", message: "No such file: /secret/<script>" });
  assertStringIncludes(other, "bash is missing inside it or the working directory is gone");
});

/**
 * The warm shells waiting in `workspace`'s sessions: bash in `read` with the loader, whose
 * directory is the workspace (through `pgrep` and `readlink`: Deno reads /proc only with -A).
 */
async function warmShellsIn(workspace: string): Promise<number[]> {
  const { stdout } = await new Deno.Command("bash", {
    args: [
      "-c",
      `for p in $(pgrep -f 'read -r -N [0-9]+ BASH_EXECUTION_STRING'); do
         [ "$(readlink /proc/$p/cwd)" = "$1" ] && echo $p; done; true`,
      "warm",
      workspace,
    ],
    stdin: "null",
  }).output();
  return new TextDecoder().decode(stdout).split("\n").filter((line) => line).map(Number);
}

async function gone(pids: number[]): Promise<boolean> {
  for (let i = 0; i < 60; i++) {
    const { success } = await new Deno.Command("ps", {
      args: ["-p", pids.join(",")],
      stdout: "null",
      stdin: "null",
    }).output();
    if (!success) return true; // ps lists none of them.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

Deno.test({
  name:
    "a context's sandboxed bash calls after its first run in the session's warm shell, with the results a cold shell gives, and it ends with the session",
  ignore: skipWithoutBwrap(),
  async fn() {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_exec_" }));
    const router = new ToolRouter({ builtins: builtinTools({ workspace, bash: true }) });
    try {
      const tools = await router.expose({ builtins: ["bash"] });
      const command =
        "echo out; echo 'érr' >&2; tr '\\0' ' ' < /proc/$$/cmdline > shell.txt; exit 3";
      const results = [];
      const warm = [];
      for (let i = 0; i < 3; i++) {
        // The next shell starts in idle time, once no request has come for a moment: wait for it.
        for (let wait = 0; i > 0 && wait < 80; wait++) {
          if ((await warmShellsIn(workspace)).length > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        results.push(JSON.parse((await tools.call("bash", { command })).text));
        warm.push((await Deno.readTextFile(`${workspace}/shell.txt`)).includes("read -r -N"));
      }
      // The first starts the session and its shell cold; the next two run warm.
      assertEquals(warm, [false, true, true]);
      for (const result of results) {
        assertEquals(result, { exitCode: 3, stdout: "out\n", stderr: "érr\n", timedOut: false });
      }
      // The next shell starts in idle time after the last answer: wait for it.
      let waiting: number[] = [];
      for (let i = 0; i < 60 && waiting.length === 0; i++) {
        waiting = await warmShellsIn(workspace);
        if (waiting.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assertEquals(waiting.length, 1, "one warm shell waits in the session");
      await router.close();
      assert(await gone(waiting), "the warm shell outlived its session");
    } finally {
      await router.close();
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

Deno.test({
  name: "SIGKILL of the host ends its session's warm shell too",
  ignore: skipWithoutBwrap(),
  async fn() {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_exec_" }));
    const host = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--no-prompt",
        new URL("./_session_host_main.ts", import.meta.url).pathname,
        workspace,
      ],
      stdout: "piped",
      stderr: "inherit",
      stdin: "null",
    }).spawn();
    const reader = host.stdout.pipeThrough(new TextDecoderStream()).getReader();
    assertEquals((await reader.read()).value, "started\n");
    let waiting: number[] = [];
    for (let i = 0; i < 60 && waiting.length === 0; i++) {
      waiting = await warmShellsIn(workspace);
      if (waiting.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assertEquals(waiting.length, 1, "no warm shell was waiting");
    host.kill("SIGKILL");
    await host.status;
    await reader.cancel();
    assert(await gone(waiting), "the warm shell outlived the host");
    await Deno.remove(workspace, { recursive: true });
  },
});
