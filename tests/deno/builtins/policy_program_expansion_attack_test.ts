/**
 * Attack on finding 9's containment (issue 25, "rules read what runs"): a deny rule reads the
 * program of each simple command as written, but bash expands braces and file-name globs in the
 * program's word before it runs it (`{rm,-f,victim}` runs `rm -f victim`, `/bin/r?` runs
 * `/bin/rm`), and `trap` runs its first argument as a script, like `eval`. Each script first runs
 * without a rule (the file is really removed), then `deny bash(rm*)` must refuse it.
 *
 * @module
 */
import { assertEquals } from "@std/assert";
import { type Policy, ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { makeFixture } from "./_fixture.ts";
import { exists } from "../../_helpers/exists.ts";

const SCRIPTS = [
  "{rm,-f,victim}",
  "/bin/r? -f victim",
  "/usr/bin/[r]m -f victim",
  "eval '{rm,-f,victim}'",
  "trap 'rm -f victim' EXIT",
  "trap -- 'rm -f victim' EXIT; true",
];

async function run(policy: Policy | undefined): Promise<{ code?: string; removed: boolean }[]> {
  await using fx = await makeFixture();
  await using router = new ToolRouter({
    builtins: builtinTools({ workspace: fx.workspace, bash: { sandbox: "none" } }),
    policy,
  });
  const tools = await router.expose({ builtins: ["bash"] });
  const results = [];
  for (const command of SCRIPTS) {
    await Deno.writeTextFile(`${fx.workspace}/victim`, "keep me\n");
    const result = await tools.call("bash", { command });
    results.push({ code: result.code, removed: !(await exists(`${fx.workspace}/victim`)) });
  }
  return results;
}

Deno.test("a program name bash expands (braces, file-name globs) or a trap's script removes the file without a rule, and deny bash(rm*) refuses it", async () => {
  const open = await run(undefined);
  for (const [i, result] of open.entries()) {
    assertEquals(result.removed, true, `the attack ran: ${SCRIPTS[i]}`);
  }
  const guarded = await run({ deny: ["bash(rm*)"] });
  for (const [i, result] of guarded.entries()) {
    assertEquals(result, { code: "permission_denied", removed: false }, SCRIPTS[i]);
  }
});
