// The containment walk (`scanAndContain`) has no folder bound a command could exceed to hide a
// repository, so it may be long: it must let the host's event loop run while it walks.
import { assert, assertEquals, assertFalse } from "@std/assert";
import {
  containSteps,
  plantedNotice,
  scanAndContain,
  scanAndContainNow,
} from "../../../../src/deno/builtins/sandbox/planted_repositories.ts";
import { protectedMountsSteps } from "../../../../src/deno/builtins/sandbox/protected_mounts.ts";
import { runSteps } from "../../../../src/deno/sandbox/walk_steps.ts";
import { exists } from "../../../_helpers/exists.ts";

/** Counts how often a zero-delay timer chain runs while `work` runs. */
async function ticksDuring<T>(work: () => T | Promise<T>): Promise<{ value: T; ticks: number }> {
  let ticks = 0;
  let on = true;
  const tick = () => {
    if (!on) return;
    ticks++;
    setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const value = await work();
  on = false;
  return { value, ticks };
}

Deno.test("scanAndContain walks thousands of folders to a planted repository, letting timers run", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_plant_" }));
  try {
    const workspace = { declared: root, real: root };
    // The first walk is the baseline: the user's repositories (none here).
    await scanAndContain(workspace, [".git"]);
    // What a command may do: many folders, and a repository after them (past the sandbox's
    // bound of 50,000 in planted_repository_overflow_attack_test.ts).
    await Deno.mkdir(`${root}/d`);
    for (let i = 0; i < 10_000; i++) Deno.mkdirSync(`${root}/d/${i}`);
    const plant = `${root}/d/9999/src`;
    await Deno.mkdir(`${plant}/objects`, { recursive: true });
    await Deno.mkdir(`${plant}/refs`);
    await Deno.writeTextFile(`${plant}/HEAD`, "ref: refs/heads/main\n");
    // Control: the walk the sandbox's mounts used to take holds the event loop throughout.
    const held = await ticksDuring(() => runSteps(protectedMountsSteps(workspace, [".git"]))!);
    assertEquals(held.ticks, 0);
    assert(held.value.directories > 10_000);
    assert(held.value.signatures.some((found) => found.rel === "d/9999/src"));
    // The quick synchronous try gives up on a walk this long.
    assertEquals(scanAndContainNow(workspace, [".git"]), undefined);
    // The containment walk: timers ran meanwhile, and the plant is disabled.
    const walked = await ticksDuring(() => scanAndContain(workspace, [".git"]));
    assert(walked.ticks >= 3, `a timer ran ${walked.ticks} times during the walk`);
    assert(walked.value.directories > 10_000);
    assertFalse(await exists(`${plant}/HEAD`), "the planted repository was left active");
    assert(await exists(`${plant}/HEAD.disabled-by-toolroute`));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a walk given up while it disables repositories loses none of them from the notice", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_plant_" }));
  try {
    const workspace = { declared: root, real: root };
    await scanAndContain(workspace, [".git"]);
    const count = 30;
    for (let i = 0; i < count; i++) {
      Deno.mkdirSync(`${root}/r${i}/objects`, { recursive: true });
      Deno.writeTextFileSync(`${root}/r${i}/HEAD`, "ref: refs/heads/main\n");
    }
    const disabled = () =>
      Array.from({ length: count }, (_, i) => i).filter((i) => !existsSync(`${root}/r${i}/HEAD`))
        .length;
    // What `scanAndContainNow` does when its few milliseconds run out: the steps are given up
    // at a pause, here one between two renames.
    const steps = containSteps(workspace, [".git"]);
    let step = steps.next();
    while (!step.done && (step.value !== undefined || disabled() === 0)) {
      step = steps.next(
        step.value === undefined ? undefined : [...Deno.readDirSync(step.value.readDir)],
      );
    }
    assertFalse(step.done, "the walk ended before it was given up");
    steps.return(undefined as never);
    const early = disabled();
    assert(early > 0 && early < count, `${early} disabled before the walk was given up`);
    // Walked again from the start: it finds only the rest.
    await scanAndContain(workspace, [".git"]);
    assertEquals(disabled(), count);
    const notice = plantedNotice(root)!;
    const named = notice.match(/: renamed /g)?.length ?? 0;
    const more = Number(notice.match(/and (\d+) more/)?.[1] ?? 0);
    assertEquals(named + more, count, notice.slice(-300));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

function existsSync(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("a protected file created at its place after quiet walks is renamed aside at the next walk", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_plant_" }));
  try {
    const workspace = { declared: root, real: root };
    const placed = Object.freeze([".git", "./deno.json", "./toolroute.lock", "cfg/deno.jsonc"]);
    const walk = () => runSteps(containSteps(workspace, placed))!;
    walk(); // the baseline: none of them exists
    // Past the racy window: the workspace folder is unchanged since a look that found none, so
    // the next walks do not look its names up again.
    await new Promise((resolve) => setTimeout(resolve, 3_200));
    walk();
    walk();
    assertEquals(plantedNotice(root), undefined);
    // What a command may do between two walks: create them (and set the folder's times back).
    await Deno.writeTextFile(`${root}/deno.json`, "{}");
    await Deno.mkdir(`${root}/cfg`);
    await Deno.writeTextFile(`${root}/cfg/deno.jsonc`, "{}");
    const stat = await Deno.stat(root);
    await Deno.utime(root, stat.atime!, new Date(stat.mtime!.getTime() - 10_000));
    walk();
    assertFalse(await exists(`${root}/deno.json`));
    assert(await exists(`${root}/deno.json.disabled-by-toolroute`));
    assert(await exists(`${root}/cfg/deno.jsonc.disabled-by-toolroute`));
    const notice = plantedNotice(root) ?? "";
    assert(notice.includes('"deno.json"') && notice.includes('"cfg/deno.jsonc"'), notice);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
