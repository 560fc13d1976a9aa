import { assert, assertEquals, assertMatch, assertStringIncludes, assertThrows } from "@std/assert";
import {
  checkUserSeparation,
  servedContexts,
  userWorkspace,
  workspaceProblems,
} from "../../../src/deno/cli/user_workspace.ts";
import { UsageError } from "../../../src/deno/cli/usage_error.ts";
import type { ToolrouteConfig, UserConfig } from "../../../src/deno/cli/toolroute_config.ts";
import { cli, makeFixture } from "./_serve_process.ts";

const user = (id: string, tokenVariable = `T_${id.length}`): UserConfig => ({
  id,
  tokenVariable,
  mcpServers: {},
});

const config = (fields: Partial<ToolrouteConfig>): ToolrouteConfig => ({
  context: { workspace: "/srv/ws/{user}" },
  builtins: true,
  modules: [],
  expose: {},
  mcpServers: {},
  users: [user("alice", "T_A"), user("bob", "T_B")],
  http: {},
  variables: [],
  ...fields,
});

Deno.test("{user} becomes the user's own folder, wherever it stands in the path", () => {
  assertEquals(userWorkspace("/srv/ws/{user}", "alice"), "/srv/ws/alice");
  assertEquals(userWorkspace("/srv/{user}/project", "bob"), "/srv/bob/project");
  assertEquals(
    servedContexts(config({})).map((context) => context.workspace),
    ["/srv/ws/alice", "/srv/ws/bob"],
  );
  assertEquals(servedContexts(config({ context: { workspace: "/srv/ws" } })), [
    { workspace: "/srv/ws" },
  ]);
});

Deno.test("a user id that is not one safe path component never names a folder", () => {
  for (const id of ["../x", "a/b", "", ".", "..", "a\\b", "a\u0000b", "a\nb", "x".repeat(256)]) {
    assertThrows(() => userWorkspace("/srv/ws/{user}", id), UsageError, "one path component");
    const problems = workspaceProblems(config({ users: [user(id, "T_EVIL")] }));
    assertEquals(problems.length, 1, JSON.stringify(id));
    assertStringIncludes(problems[0], `the id ${JSON.stringify(id)} cannot name the user's folder`);
  }
  assertEquals(workspaceProblems(config({})), []);
});

Deno.test("a per-user workspace refuses what would open one user's folder to another", () => {
  const problem = (fields: Partial<ToolrouteConfig>) =>
    workspaceProblems(config(fields)).join("\n");
  assertMatch(
    problem({ context: { workspace: "/srv/ws-{user}" } }),
    /once, as a whole folder name/,
  );
  assertMatch(problem({ context: { workspace: "/srv/{user}/{user}" } }), /once, as a whole folder/);
  assertMatch(problem({ users: [] }), /holds \{user\} but the config has no "users"/);
  assertMatch(
    problem({ users: [user("alice", "T_A"), user("Alice", "T_B")] }),
    /differs from "alice" only in case/,
  );
  assertMatch(
    problem({ users: [user("caf\u00e9", "T_A"), user("cafe\u0301", "T_B")] }),
    /only in case or Unicode form/,
  );
  for (const root of ["/srv", "/srv/ws", "/srv/ws/bob/vendor"]) {
    assertMatch(
      problem({ context: { workspace: "/srv/ws/{user}", readOnlyRoots: [root] } }),
      /every user could read it/,
      root,
    );
  }
  assertEquals(
    problem({ context: { workspace: "/srv/ws/{user}", readOnlyRoots: ["/srv/ws/shared"] } }),
    "",
  );
  assertMatch(
    problem({ context: { workspace: "/srv/ws/{user}", readOnlyRoots: ["/srv/docs/{user}"] } }),
    /only "workspace" may hold \{user\}/,
  );
  assertMatch(problem({ sharedWorkspace: true }), /"sharedWorkspace": true contradicts \{user\}/);
  assertMatch(
    problem({ context: { workspace: "/srv/ws/{user}", bash: { sandbox: "none" } } }),
    /bash.sandbox "none" lets every command reach every folder/,
  );
});

Deno.test("several users share one workspace only when the config or the flag says so", () => {
  const shared = config({ context: { workspace: "/srv/ws" } });
  const error = assertThrows(() => checkUserSeparation(shared), UsageError);
  assertStringIncludes(error.message, '2 users ("alice", "bob") would share the workspace');
  assertStringIncludes(error.message, '"/srv/ws/{user}"');
  assertStringIncludes(error.message, '"sharedWorkspace": true');
  assertStringIncludes(error.message, "--shared-workspace");
  checkUserSeparation(shared, true);
  checkUserSeparation({ ...shared, sharedWorkspace: true });
  checkUserSeparation(config({})); // {user}
  checkUserSeparation({ ...shared, users: [user("alice")] }); // one user
  checkUserSeparation({ ...shared, expose: { builtins: [] } }); // no built-in served
  checkUserSeparation({ ...shared, builtins: false });
});

Deno.test("several users with unsandboxed bash are refused, whatever the workspace", () => {
  const none = { sandbox: "none" as const };
  for (const workspace of ["/srv/ws", "/srv/ws/{user}"]) {
    const unconfined = config({ context: { workspace, bash: none }, sharedWorkspace: true });
    assertThrows(
      () => checkUserSeparation(unconfined, true),
      UsageError,
      'with bash.sandbox "none": every user\'s commands would run unconfined',
    );
  }
  const noBash = config({
    context: { workspace: "/srv/ws", bash: none },
    expose: { builtins: ["read_file"] },
    sharedWorkspace: true,
  });
  checkUserSeparation(noBash);
  checkUserSeparation({ ...noBash, users: [user("alice")], expose: {} }); // one user
});

Deno.test("serve refuses several users on one workspace, names both ways out, and takes --shared-workspace", async () => {
  await using fixture = await makeFixture({
    bash: true,
    users: { TOOLROUTE_TEST_UNSET_A: { id: "alice" }, TOOLROUTE_TEST_UNSET_B: { id: "bob" } },
  });
  const serve = (extra: string[]) =>
    cli(["serve", "--config", fixture.config, "--http", "127.0.0.1:0", "--allow-excess", ...extra]);
  const refused = await serve([]);
  assertEquals(refused.code, 2);
  assertStringIncludes(refused.err, "would share the workspace");
  assertStringIncludes(refused.err, `"${fixture.workspace}/{user}"`);
  assertStringIncludes(
    refused.err,
    '"sharedWorkspace": true in the config (or --shared-workspace)',
  );
  // Past the sharing check, serve stops at the next one: the users' tokens are not set.
  const shared = await serve(["--shared-workspace"]);
  assertEquals(shared.code, 2);
  assert(!shared.err.includes("would share the workspace"), shared.err);
  assertStringIncludes(shared.err, 'The token of user "alice" is not set');
});

Deno.test("a config whose {user} cannot name a folder is refused at load, by every command", async () => {
  for (const id of ["../x", "a/b", ".", ".."]) {
    await using fixture = await makeFixture({
      workspace: "work/{user}",
      bash: true,
      users: { TOKEN_A: { id }, TOKEN_B: { id: "bob" } },
    });
    for (const command of [["serve", "--allow-excess"], ["flags"], ["tools"]]) {
      const result = await cli([...command, "--config", fixture.config]);
      assertEquals(result.code, 2, `${command[0]} ${id}`);
      assertStringIncludes(result.err, `users.TOKEN_A: the id ${JSON.stringify(id)} cannot name`);
    }
    // Nothing was created outside (or inside) the folder of the users.
    assertEquals(await Deno.stat(`${fixture.dir}/work`).catch(() => undefined), undefined);
  }
  await using empty = await makeFixture({
    workspace: "work/{user}",
    users: { TOKEN_A: { id: "" } },
  });
  const result = await cli(["flags", "--config", empty.config]);
  assertEquals(result.code, 2);
  assertStringIncludes(result.err, "users.TOKEN_A.id");
});

Deno.test("flags grant each user's folder and never the folder above; stdio and call need --user", async () => {
  await using fixture = await makeFixture({
    workspace: "work/{user}",
    bash: true,
    users: { TOKEN_A: { id: "alice" }, TOKEN_B: { id: "bob" } },
  });
  const flags = await cli(["flags", "--config", fixture.config]);
  assertEquals(flags.code, 0, flags.err);
  const write = flags.out.split(" ").find((flag) => flag.startsWith("--allow-write="));
  assertEquals(write, `--allow-write=${fixture.dir}/work/alice,${fixture.dir}/work/bob`);
  assert(!flags.out.includes("{user}"), flags.out);
  assert(!flags.out.split(/[ =,]/).includes(`${fixture.dir}/work`), flags.out);
  for (const command of [["call", "read_file", "{}"], ["serve", "--stdio", "--allow-excess"]]) {
    const result = await cli([...command, "--config", fixture.config]);
    assertEquals(result.code, 2, command.join(" "));
    assertStringIncludes(result.err, "is a folder per user: pass --user ID");
  }
});
