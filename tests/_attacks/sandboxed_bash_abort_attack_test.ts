// Issue 27 let a sandboxed command's stop follow `AbortSignal.any([call, disk bound])` instead
// of a controller of its own that the call's abort fed. A model's command that tries to outlive
// its call (a background child that writes later, a trap that ignores TERM) must be stopped by
// the call's abort, in the sandbox, and the session must go on serving the next command.
import { assert, assertEquals } from "@std/assert";
import { join } from "@std/path";
import { sandboxedBash } from "../_helpers/sandboxed_bash.ts";
import { skipWithoutBwrap } from "../_helpers/bwrap.ts";

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

Deno.test({
  name:
    "a sandboxed command aborted by its call's signal stops at once, its children with it, and the session serves on",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using bash = await sandboxedBash({
      bash: { sandbox: "bwrap" },
      commandTimeoutMs: 60_000,
    });
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 1_000);
    const result = await bash.tools.call("bash", {
      command: "trap '' TERM; touch started; (sleep 3; touch late) & sleep 30; touch done",
    }, { signal: controller.signal });
    const took = performance.now() - started;
    assertEquals(result.code, "aborted", result.text);
    assert(took < 10_000, `the call ended after ${Math.round(took)} ms`);
    assert(await exists(join(bash.ws, "started")), "the attack ran: the command started");
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    assert(!(await exists(join(bash.ws, "late"))), "a background child outlived the abort");
    assert(!(await exists(join(bash.ws, "done"))));
    const next = await bash.tools.call("bash", { command: "echo still here" });
    assertEquals(next.isError, false, next.text);
    assert(next.text.includes("still here"), next.text);
  },
});

Deno.test({
  name: "a sandboxed command whose call was aborted before it started never runs",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using bash = await sandboxedBash({ bash: { sandbox: "bwrap" } });
    const result = await bash.tools.call("bash", { command: "touch ran" }, {
      signal: AbortSignal.abort(),
    });
    assertEquals(result.code, "aborted", result.text);
    assert(!(await exists(join(bash.ws, "ran"))));
  },
});

Deno.test({
  name:
    "a sandboxed command that fills the workspace past its disk bound is stopped as an abort would stop it",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using bash = await sandboxedBash({
      bash: { sandbox: "bwrap", limits: { diskMiB: 2 } },
      commandTimeoutMs: 60_000,
    });
    const started = performance.now();
    const result = await bash.tools.call("bash", {
      command:
        "for i in $(seq 1 100); do head -c 1048576 /dev/zero > f$i; sleep 0.1; done; touch done",
    });
    const took = performance.now() - started;
    assertEquals(result.isError, true, result.text);
    assert(/disk|MiB/i.test(result.text), result.text);
    assert(took < 20_000, `${Math.round(took)} ms`);
    assert(await exists(join(bash.ws, "f1")), "the attack ran: it wrote");
    assert(!(await exists(join(bash.ws, "done"))), "the command ran to its end");
  },
});
