import { assertEquals } from "@std/assert";
import { reap, RUN_MARKER } from "../../../../src/deno/builtins/bash/process_reaper.ts";
import { leftovers, processesMatching, uniqueSleep } from "../_bash_fixture.ts";

function sleeper(sleep: string, env: Record<string, string>): Deno.ChildProcess {
  return new Deno.Command("bash", {
    args: ["-c", `sleep ${sleep} & sleep ${sleep} & wait`],
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
}

Deno.test("reap() of a marked run kills every process carrying its marker, and only those", async () => {
  const mine = uniqueSleep();
  const other = uniqueSleep();
  const marker = crypto.randomUUID();
  const child = sleeper(mine, { [RUN_MARKER]: marker });
  const bystander = sleeper(other, { [RUN_MARKER]: crypto.randomUUID() });
  try {
    while ((await processesMatching(`sleep ${mine}`)).length < 3) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await reap({ kind: "marked", child, marker });
    assertEquals((await child.status).signal, "SIGKILL");
    assertEquals(await leftovers(`sleep ${mine}`), []);
    assertEquals((await processesMatching(`sleep ${other}`)).length, 3);
  } finally {
    bystander.kill("SIGKILL");
    await bystander.status;
    for (const pid of await processesMatching(`sleep ${other}`)) Deno.kill(pid, "SIGKILL");
  }
});

Deno.test("reap() of a group signals every process of the group", async () => {
  const sleep = uniqueSleep();
  const child = new Deno.Command("bash", {
    args: ["-c", `sleep ${sleep} & sleep ${sleep} & wait`],
    detached: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  while ((await processesMatching(`sleep ${sleep}`)).length < 3) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await reap({ kind: "group", pgid: child.pid }, "SIGTERM");
  await child.status;
  assertEquals(await leftovers(`sleep ${sleep}`), []);
});
