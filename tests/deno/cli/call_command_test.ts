import { assert, assertEquals, assertMatch, assertRejects } from "@std/assert";
import { callCommand } from "../../../src/deno/cli/call_command.ts";
import { UsageError } from "../../../src/deno/cli/usage_error.ts";
import { makeFixture } from "./_serve_process.ts";
import { lockCommand } from "../../../src/deno/cli/lock_command.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";

const REPO_MOD = new URL("../../../mod.ts", import.meta.url).href;

const MODULE = `import { defineTool } from "${REPO_MOD}";
import { z } from "zod";
export const hello = defineTool({
  name: "hello", description: "Greets", input: z.object({ name: z.string().default("world") }),
  run: ({ name }) => "hello " + name,
});
export const steps = defineTool({
  name: "steps", description: "Reports progress", input: z.object({}),
  run: (_args, ctx) => {
    ctx.onProgress?.({ progress: 1, total: 2, message: "half way" });
    ctx.onProgress?.({ progress: 2, total: 2 });
    return "done";
  },
});
export const stall = defineTool({
  name: "stall", description: "Waits until aborted", input: z.object({}),
  run: (_args, ctx) => new Promise((_, reject) =>
    ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
});
`;

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { out: (line: string) => out.push(line), err: (l: string) => err.push(l) },
  };
}

async function moduleFixture() {
  const fixture = await makeFixture({ modules: ["tools.ts"] });
  await Deno.writeTextFile(`${fixture.dir}/tools.ts`, MODULE);
  return fixture;
}

Deno.test("callCommand() prints the result and returns 0, with {} as the default arguments", async () => {
  await using fixture = await moduleFixture();
  const { out, err, io } = capture();
  assertEquals(
    await callCommand({ flags: { config: fixture.config }, positionals: ["hello"] }, io),
    0,
  );
  assertEquals(out, ["hello world"]);
  assertEquals(err, []);
  assertEquals(
    await callCommand({
      flags: { config: fixture.config },
      positionals: ["hello", '{"name":"Ada"}'],
    }, io),
    0,
  );
  assertEquals(out[1], "hello Ada");
});

Deno.test("callCommand() prints an error result on stdout and returns 1", async () => {
  await using fixture = await moduleFixture();
  const { out, io } = capture();
  assertEquals(
    await callCommand(
      { flags: { config: fixture.config }, positionals: ["hello", '{"name":5}'] },
      io,
    ),
    1,
  );
  assertMatch(out[0], /name/);
  assertEquals(
    await callCommand({ flags: { config: fixture.config }, positionals: ["nope"] }, io),
    1,
  );
  assertMatch(out[1], /Unknown tool "nope"/);
});

Deno.test("callCommand() writes progress to stderr, never to stdout", async () => {
  await using fixture = await moduleFixture();
  const { out, err, io } = capture();
  assertEquals(
    await callCommand({ flags: { config: fixture.config }, positionals: ["steps"] }, io),
    0,
  );
  assertEquals(out, ["done"]);
  assertEquals(err, ["toolroute: progress half way", "toolroute: progress 2"]);
});

Deno.test("callCommand() --timeout ends a stalled call with a timeout error result", async () => {
  await using fixture = await moduleFixture();
  const { out, io } = capture();
  const started = Date.now();
  assertEquals(
    await callCommand(
      { flags: { config: fixture.config, timeout: "100" }, positionals: ["stall"] },
      io,
    ),
    1,
  );
  assertMatch(out[0], /Tool "stall" did not finish within 100 ms/);
  assertEquals(Date.now() - started < 3000, true);
});

Deno.test("callCommand() throws a UsageError before loading anything for a malformed call", async () => {
  const { out, io } = capture();
  const flags = { config: "/nonexistent/toolroute.json" };
  await assertRejects(
    () => callCommand({ flags, positionals: [] }, io),
    UsageError,
    'Missing the tool name; see "toolroute call --help"',
  );
  await assertRejects(
    () => callCommand({ flags, positionals: ["a", "{}", "b", "c"] }, io),
    UsageError,
    'Too many arguments: "b" "c"; pass the JSON arguments as one quoted argument',
  );
  for (const timeout of ["0", "-5", "1.5", "soon"]) {
    await assertRejects(
      () => callCommand({ flags: { ...flags, timeout }, positionals: ["a"] }, io),
      UsageError,
      `"--timeout" must be a positive number of milliseconds, received "${timeout}"`,
    );
  }
  assertEquals(out, []);
});

Deno.test("callCommand() --user of an unknown user throws a UsageError naming the known ones", async () => {
  await using fixture = await makeFixture({ users: { TOKEN_A: { id: "alice" } } });
  const { io } = capture();
  await assertRejects(
    () =>
      callCommand({
        flags: { config: fixture.config, user: "mallory" },
        positionals: ["read_file"],
      }, io),
    UsageError,
    `Unknown user "mallory"; the config's users are: "alice"`,
  );
});

async function policyFixture(policy: Record<string, unknown>) {
  const fixture = await makeFixture({ modules: ["tools.ts"], policy });
  await Deno.writeTextFile(`${fixture.dir}/tools.ts`, MODULE);
  return fixture;
}

Deno.test("callCommand() under a policy: a denied call runs nothing and names the rule", async () => {
  await using fixture = await policyFixture({ deny: ["hello(name=Eve)", "steps"] });
  const { out, io } = capture();
  assertEquals(
    await callCommand({
      flags: { config: fixture.config },
      positionals: ["hello", '{"name":"Eve"}'],
    }, io),
    1,
  );
  assertMatch(out[0], /denied by policy rule "hello\(name=Eve\)"/);
  assertEquals(
    await callCommand({ flags: { config: fixture.config }, positionals: ["steps"] }, io),
    1,
  );
  assertMatch(out[1], /Unknown tool "steps"/);
  assertEquals(
    await callCommand({ flags: { config: fixture.config }, positionals: ["hello"] }, io),
    0,
  );
});

Deno.test("callCommand() refuses an ask when nobody can be asked (stdin not a terminal)", async () => {
  await using fixture = await policyFixture({ ask: ["hello"] });
  const { out, err, io } = capture();
  assertEquals(
    await callCommand({ flags: { config: fixture.config }, positionals: ["hello"] }, io),
    1,
  );
  assertMatch(err.join("\n"), /refusing to call "hello".*stdin is not a terminal/);
  assertMatch(out[0], /needs a person's approval/);
});

Deno.test("callCommand() asks on the terminal: yes runs the call, no declines with the reason", async () => {
  await using fixture = await policyFixture({ ask: ["hello"] });
  const questions: string[] = [];
  const answers = ["y", "n not today"];
  const { out, io } = capture();
  const asking = {
    ...io,
    ask: (question: string) => {
      questions.push(question);
      return Promise.resolve(answers.shift() ?? null);
    },
  };
  assertEquals(
    await callCommand({
      flags: { config: fixture.config },
      positionals: ["hello", '{"name":"Ada"}'],
    }, asking),
    0,
  );
  assertEquals(out[0], "hello Ada");
  assertEquals(
    questions[0],
    "toolroute: allow hello with these arguments?\nname: Ada\n(asked by rule hello) [once/session/always/No] ",
  );
  assertEquals(
    await callCommand({ flags: { config: fixture.config }, positionals: ["hello"] }, asking),
    1,
  );
  assertMatch(out[1], /declined the call to "hello": not today/);
});

Deno.test("callCommand() rejects a config whose policy has a malformed rule, naming it", async () => {
  await using fixture = await policyFixture({ deny: ["hello("] });
  const { io } = capture();
  await assertRejects(
    () => callCommand({ flags: { config: fixture.config }, positionals: ["hello"] }, io),
    UsageError,
    '"hello(" in "deny"',
  );
});

Deno.test("callCommand() starts only the server its tool needs: none for a built-in, one for a server_tool name", async () => {
  const fixtureServer = new URL("../../_fixtures/stdio_server.ts", import.meta.url).pathname;
  await using fixture = await makeFixture();
  // Each server writes its marker as its command runs, before it answers.
  // Unconfined: the marker is written by the host-side shell, outside any root a sandbox would
  // grant (which servers start is what this test is about).
  const server = (id: string) => ({
    sandbox: "none" as const,
    command: "/bin/sh",
    args: [
      "-c",
      `echo ran >> ${fixture.dir}/${id}.ran; exec ${Deno.execPath()} run --no-prompt ${fixtureServer}`,
    ],
  });
  await Deno.writeTextFile(
    fixture.config,
    JSON.stringify({ workspace: "workspace", mcpServers: { a: server("a"), b: server("b") } }),
  );
  const ran = async (id: string) => {
    try {
      return (await Deno.readTextFile(`${fixture.dir}/${id}.ran`)).trim();
    } catch {
      return "";
    }
  };
  const { out, io } = capture();
  assertEquals(
    await callCommand({
      flags: { config: fixture.config },
      positionals: ["read_file", '{"path":"hello.txt"}'],
    }, io),
    0,
  );
  assertMatch(out.at(-1)!, /hello from the workspace/);
  assertEquals([await ran("a"), await ran("b")], ["", ""], "a built-in starts no server");
  assertEquals(
    await callCommand({
      flags: { config: fixture.config },
      positionals: ["a_echo", '{"text":"hi"}'],
    }, io),
    0,
  );
  assertEquals(out.at(-1), "hi");
  assertEquals([await ran("a"), await ran("b")], ["ran", ""], "only a's command ran");
  // The other server by its prefix: its command runs now.
  assertEquals(
    await callCommand({
      flags: { config: fixture.config },
      positionals: ["b_add", '{"a":1,"b":2}'],
    }, io),
    0,
  );
  assertEquals(out.at(-1), "3");
  assertEquals(await ran("b"), "ran");
});

Deno.test("callCommand() prints one line per starting server on a terminal, none otherwise", async () => {
  const fixtureServer = new URL("../../_fixtures/stdio_server.ts", import.meta.url).pathname;
  await using fixture = await makeFixture({
    mcpServers: { a: { command: Deno.execPath(), args: ["run", "--no-prompt", fixtureServer] } },
  });
  const plain = capture();
  assertEquals(
    await callCommand({
      flags: { config: fixture.config },
      positionals: ["a_echo", '{"text":"x"}'],
    }, plain.io),
    0,
  );
  assertEquals(plain.err, []);
  const terminal = capture();
  assertEquals(
    await callCommand({
      flags: { config: fixture.config },
      positionals: ["a_echo", '{"text":"x"}'],
    }, {
      ...terminal.io,
      terminal: true,
    }),
    0,
  );
  assertEquals(terminal.err, ['toolroute: starting MCP server "a"…']);
});

Deno.test("callCommand() places a plain name through toolroute.lock and starts only that server", async () => {
  const fixtureServer = new URL("../../_fixtures/stdio_server.ts", import.meta.url).pathname;
  let pongRequests = 0;
  const pong = await startMcpTestServer({
    tools: (server) => {
      server.registerTool("pong", { description: "Answers pong" }, () => ({
        content: [{ type: "text", text: "pong" }],
      }));
    },
    intercept: () => {
      pongRequests++;
      return undefined;
    },
  });
  try {
    await using fixture = await makeFixture();
    const marker = `${fixture.dir}/a.ran`;
    await Deno.writeTextFile(
      fixture.config,
      JSON.stringify({
        mcpServers: {
          // Unconfined: the host-side shell writes the marker outside any sandbox root.
          a: {
            sandbox: "none",
            command: "/bin/sh",
            args: [
              "-c",
              `echo ran >> ${marker}; exec ${Deno.execPath()} run --no-prompt ${fixtureServer}`,
            ],
          },
          b: { url: pong.url },
        },
      }),
    );
    const { out, io } = capture();
    // The lock connects every server: a's command runs once here.
    assertEquals(await lockCommand({ config: fixture.config }, io), 0);
    assertEquals((await Deno.readTextFile(marker)).trim(), "ran");
    await Deno.remove(marker);
    const before = pongRequests;
    assertEquals(
      await callCommand({ flags: { config: fixture.config }, positionals: ["pong"] }, io),
      0,
    );
    assertEquals(out.at(-1), "pong");
    assert(pongRequests > before, "b was asked");
    assertEquals(await Deno.stat(marker).then(() => true, () => false), false, "a never ran");
  } finally {
    await pong.close();
  }
});

Deno.test("callCommand() of a known tool whose server became unreachable exits 1 and names the server", async () => {
  const pong = await startMcpTestServer({
    tools: (server) => {
      server.registerTool("pong", { description: "Answers pong" }, () => ({
        content: [{ type: "text", text: "pong" }],
      }));
    },
  });
  let closed = false;
  try {
    await using fixture = await makeFixture({ mcpServers: { b: { url: pong.url } } });
    const call = async () => {
      const { out, err, io } = capture();
      const code = await callCommand(
        { flags: { config: fixture.config }, positionals: ["pong"] },
        io,
      );
      return { code, out: out.join("\n"), err: err.join("\n") };
    };
    // Reachable: the call runs (and the tool's name is kept for later starts).
    const up = await call();
    assertEquals([up.code, up.out], [0, "pong"], up.err);
    await pong.close();
    closed = true;
    const down = await call();
    assertEquals(down.code, 1, down.out);
    assertMatch(down.out, /"b"/);
  } finally {
    if (!closed) await pong.close();
  }
});
