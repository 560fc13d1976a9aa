/**
 * The sample commands of docs/cli.md and docs/mcp_stdio.md run with exactly the flags the docs
 * print (read from the docs themselves), and `toolroute flags` covers a stdio server that finds
 * its program through `PATH`, as an `npx` server does.
 *
 * @module
 */

import { assert, assertEquals, assertMatch } from "@std/assert";
import { dirname, join } from "@std/path";
import { CLI } from "./_serve_process.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";
import { INITIALIZE_MESSAGE } from "../../_helpers/initialize_request.ts";

const REPO = new URL("../../..", import.meta.url).pathname;
const FIXTURE = `${REPO}tests/_fixtures/stdio_server.ts`;
const decoder = new TextDecoder();

async function tempDir(): Promise<string & AsyncDisposable> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_docs_" }));
  return Object.assign(new String(dir) as unknown as string, {
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  });
}

/** A plain environment: what a shell has, without the test runner's variables. */
function shellEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: `${dirname(Deno.execPath())}:/usr/local/bin:/usr/bin:/bin`,
    HOME: Deno.env.get("HOME") ?? "/",
    NO_COLOR: "1",
  };
  for (const name of ["DENO_DIR", "TMPDIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

/** One line of a doc that matches, with its captures. */
async function docLine(doc: string, pattern: RegExp): Promise<RegExpMatchArray> {
  const text = await Deno.readTextFile(`${REPO}docs/${doc}`);
  const match = text.match(pattern);
  if (match === null) throw new Error(`docs/${doc} has no line matching ${pattern}`);
  return match;
}

/**
 * Runs `toolroute serve` over stdio with the given flags, lists its tools and closes it.
 *
 * @returns The listed tool names and stderr.
 */
async function listOverStdio(
  flags: string[],
  serveArgs: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<{ names: string[]; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, CLI, "serve", ...serveArgs],
    cwd: options.cwd,
    clearEnv: true,
    env: options.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const send = (message: unknown) =>
    writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  await send(INITIALIZE_MESSAGE);
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
  const stderr = new Response(child.stderr).text();
  let buffer = "";
  let names: string[] | undefined;
  for await (const chunk of child.stdout) {
    buffer += decoder.decode(chunk, { stream: true });
    const line = buffer.split("\n").find((each) => each.includes('"id":2'));
    if (line !== undefined) {
      names = (JSON.parse(line).result?.tools ?? []).map((tool: { name: string }) => tool.name);
      break;
    }
  }
  await writer.close();
  await child.status;
  return { names: names ?? [], stderr: await stderr };
}

Deno.test("docs/cli.md's one line for a workspace serves it with exactly its flags", async () => {
  await using dir = await tempDir();
  const [, flags] = await docLine(
    "cli.md",
    /^deno run (.+) jsr:@toolroute\/toolroute\/cli serve --workspace \$PWD$/m,
  );
  const args = flags.split(" ").map((flag) => flag.replaceAll("$PWD", `${dir}`));
  const { names, stderr } = await listOverStdio(args, ["--workspace", `${dir}`], {
    cwd: `${dir}`,
    env: shellEnv(),
  });
  const [, listed] = await docLine(
    "cli.md",
    /^That serves the \w+ file tools over stdio: ([^(]+) \(/m,
  );
  const documented = [...listed.matchAll(/`(\w+)`/g)].map(([, name]) => name);
  assertEquals(names.toSorted(), documented.toSorted(), stderr);
});

Deno.test("toolroute flags lets an npx-style stdio server find its program through PATH", async () => {
  await using dir = await tempDir();
  // The program a wrapper starts by name, as npx starts the package's bin: found through PATH.
  const bin = join(`${dir}`, "bin");
  await Deno.mkdir(bin);
  const program = join(bin, "toolroute-fixture-mcp");
  await Deno.writeTextFile(
    program,
    `#!/bin/sh\nexec "${Deno.execPath()}" run --no-prompt --config "${REPO}deno.json" "${FIXTURE}"\n`,
  );
  await Deno.chmod(program, 0o755);
  await Deno.writeTextFile(
    join(`${dir}`, "toolroute.json"),
    JSON.stringify({
      // Unsandboxed on purpose: this is about the host's PATH reaching the program, and the
      // wrapper runs files (this checkout) its command line does not name, which a sandbox
      // would not show (a sandboxed server sees only its program, runtime, project and caches).
      mcpServers: {
        memory: { command: "sh", args: ["-c", "exec toolroute-fixture-mcp"], sandbox: "none" },
      },
    }),
  );
  const env = shellEnv({ PATH: `${bin}:${shellEnv().PATH}` });
  // As docs/cli.md writes it: deno run $(toolroute flags --config toolroute.json) … serve.
  const printed = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "flags", "--config", "toolroute.json"],
    cwd: `${dir}`,
    clearEnv: true,
    env,
  }).output();
  assertEquals(printed.code, 0, decoder.decode(printed.stderr));
  const flags = decoder.decode(printed.stdout).trim().split(" ");
  assertMatch(flags.join(" "), /--allow-env=\S*\bHOME\b\S*\bPATH\b/);
  assertMatch(flags.join(" "), new RegExp(`--allow-write=\\S*${dir}/toolroute.lock`));
  const { names, stderr } = await listOverStdio(flags, ["--config", "toolroute.json"], {
    cwd: `${dir}`,
    env,
  });
  assert(names.includes("echo"), stderr);
});

Deno.test("docs/mcp_stdio.md's example runs with exactly its flags: a stdio server and a remote one", async () => {
  await using dir = await tempDir();
  const remote = await startMcpTestServer();
  try {
    const [, flags] = await docLine(
      "mcp_stdio.md",
      /^`deno run (--allow-read=mcp\.json [^`]*) app\.ts`$/m,
    );
    const host = new URL(remote.url).host;
    const args = flags.split(" ").map((flag) => flag.replace("api.example.com", host));
    await Deno.writeTextFile(
      join(`${dir}`, "mcp.json"),
      JSON.stringify({
        mcpServers: {
          files: { command: "deno", args: ["run", "--config", `${REPO}deno.json`, FIXTURE] },
          github: { url: remote.url, headers: { Authorization: "Bearer ${GH_TOKEN}" } },
        },
      }),
    );
    // The doc's code, with the package names pointing at this checkout.
    await Deno.writeTextFile(
      join(`${dir}`, "app.ts"),
      `import { ToolRouter } from "${REPO}mod.ts";
import { createDenoGateway, loadMcpConfig } from "${REPO}src/deno/mod.ts";

await using gateway = createDenoGateway({ servers: await loadMcpConfig("mcp.json") });
const router = new ToolRouter({ gateway });
const toolSet = await router.expose({ mcpServers: ["files", "github"] });
console.log(JSON.stringify({ names: toolSet.names, missing: toolSet.missing }));
`,
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--config", `${REPO}deno.json`, ...args, "app.ts"],
      cwd: `${dir}`,
      clearEnv: true,
      env: shellEnv({ GH_TOKEN: "gh-token-0123456789" }),
    }).output();
    const stderr = decoder.decode(output.stderr);
    assertEquals(output.code, 0, stderr);
    const { names, missing } = JSON.parse(decoder.decode(output.stdout));
    assertEquals(missing, [], stderr);
    assert(names.includes("whoami") && names.includes("read"), names.join());
    // The remote server received the header with the variable the flags let the app read.
    assert(remote.headersSeen.some((h) => h.get("authorization") === "Bearer gh-token-0123456789"));
  } finally {
    await remote.close();
  }
});
