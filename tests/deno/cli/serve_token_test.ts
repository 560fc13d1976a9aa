import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { cli, exactFlags, makeFixture, startHttpServe } from "./_serve_process.ts";
import { initializeRequest } from "../../_helpers/initialize_request.ts";

const initialize = (url: string, headers?: Record<string, string>) =>
  fetch(initializeRequest(url, headers));

async function status(response: Response): Promise<number> {
  await response.body?.cancel();
  return response.status;
}

Deno.test("serve --http without users on loopback requires the generated token (RT-3), printed once and written 0600", async () => {
  await using fixture = await makeFixture({ expose: { builtins: ["read_file"] } });
  const tokenFile = `${fixture.dir}/token`;
  const flags = await exactFlags([
    "--config",
    fixture.config,
    "--http",
    "127.0.0.1:0",
    "--token-file",
    tokenFile,
  ]);
  assert(flags.some((flag) => flag.startsWith("--allow-env=") && flag.includes("TOOLROUTE_TOKEN")));
  assert(flags.some((flag) => flag.startsWith("--allow-write=") && flag.includes(tokenFile)));
  // Empty TOOLROUTE_TOKEN: a token is generated.
  await using serve = await startHttpServe(flags, [
    "--config",
    fixture.config,
    "--token-file",
    tokenFile,
  ], {
    TOOLROUTE_TOKEN: "",
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  const token = serve.stderr().match(/Authorization: Bearer (\S+)/)?.[1];
  assert(token !== undefined && token.length >= 40, serve.stderr());
  assertStringIncludes(serve.stderr(), `"headers":{"Authorization":"Bearer ${token}"}`);
  assertEquals((await Deno.readTextFile(tokenFile)).trim(), token);
  assertEquals((await Deno.stat(tokenFile)).mode! & 0o777, 0o600);
  assertEquals(await status(await initialize(serve.url)), 401);
  assertEquals(await status(await initialize(serve.url, { authorization: "Bearer wrong" })), 401);
  assertEquals(
    await status(await initialize(serve.url, { authorization: `Bearer ${token}` })),
    200,
  );
  // DNS-rebinding checks stay, also with the token.
  assertEquals(
    await status(
      await initialize(serve.url, {
        authorization: `Bearer ${token}`,
        origin: "http://evil.example.com",
      }),
    ),
    403,
  );
  assertEquals(
    serve.stderr().split(token!).length - 1,
    2,
    "the token is printed once (header + snippet)",
  );
});

Deno.test("serve --http takes TOOLROUTE_TOKEN, never prints it, and refuses a weak one", async () => {
  await using fixture = await makeFixture({ expose: { builtins: ["read_file"] } });
  const flags = await exactFlags(["--config", fixture.config, "--http", "127.0.0.1:0"]);
  const chosen = "chosen-token-abcdefghijklmnop";
  await using serve = await startHttpServe(flags, ["--config", fixture.config], {
    TOOLROUTE_TOKEN: chosen,
  });
  assertEquals(await status(await initialize(serve.url)), 401);
  assertEquals(
    await status(await initialize(serve.url, { authorization: `Bearer ${chosen}` })),
    200,
  );
  assertEquals(serve.stderr().includes(chosen), false);
  await assertStartFails(flags, fixture.config, { TOOLROUTE_TOKEN: "short" }, /at least 16/);
});

Deno.test("serve --http refuses to start without permission to read TOOLROUTE_TOKEN, naming the flag", async () => {
  await using fixture = await makeFixture({ expose: { builtins: ["read_file"] } });
  const flags = (await exactFlags(["--config", fixture.config, "--http", "127.0.0.1:0"]))
    .filter((flag) => !flag.startsWith("--allow-env"));
  await assertStartFails(flags, fixture.config, {}, /--allow-env=TOOLROUTE_TOKEN/);
});

Deno.test("serve --token-file without --http is a usage error", async () => {
  await using fixture = await makeFixture();
  const { code, err } = await cli(["serve", "--config", fixture.config, "--token-file", "x"]);
  assertEquals(code, 2);
  assertMatch(err, /"--token-file" applies to --http/);
});

async function assertStartFails(
  flags: string[],
  config: string,
  env: Record<string, string>,
  pattern: RegExp,
): Promise<void> {
  const { CLI } = await import("./_serve_process.ts");
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, CLI, "serve", "--http", "127.0.0.1:0", "--config", config],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    env,
  }).output();
  assertEquals(output.code, 2);
  assertMatch(new TextDecoder().decode(output.stderr), pattern);
}
