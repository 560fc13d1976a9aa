import { assert, assertEquals } from "@std/assert";

const CONTEXT = new URL(
  "../../../../src/deno/sandbox/supervisor/supervisor_context.ts",
  import.meta.url,
).href;

// A supervisor started on the host by mistake once SIGKILLed every process of the machine when its
// stdin closed: outside a bubblewrap PID namespace it must see no process to kill. The child
// below has every permission, as the supervisor has, and only lists (never kills), so a
// regression shows as a failure, not as a dead machine.
Deno.test("supervisorContext() on the host, with every permission, lists no process to kill", async () => {
  const script = `
    import { supervisorContext } from ${JSON.stringify(CONTEXT)};
    let visible = 0;
    for (const entry of Deno.readDirSync("/proc")) if (/^\\d+$/.test(entry.name)) visible++;
    console.log(JSON.stringify({
      init: Deno.readTextFileSync("/proc/1/comm"),
      visible,
      listed: supervisorContext().processIds().length,
    }));
  `;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", "--quiet", script],
    stdin: "null",
  }).output();
  assert(output.success, new TextDecoder().decode(output.stderr));
  const { init, visible, listed } = JSON.parse(new TextDecoder().decode(output.stdout));
  assert(init !== "bwrap\n", "the child must run on the host, not inside a sandbox");
  assert(visible > 1, `the host shows ${visible} processes: the check would prove nothing`);
  assertEquals(listed, 0);
});
