/**
 * Resources, resource templates, prompts and completion of upstream MCP servers through
 * `toolroute serve --http`, to a 2025 client and a 2026-07-28 client: per user, named per server
 * like tools, filtered by the policy (a hidden server's resources and prompts are gone, and its
 * URI is refused exactly like an unknown one), a per-user server's resources only for that user,
 * and a `resource_link` a tool returns readable through serve.
 *
 * @module
 */
import { assert, assertEquals, assertMatch, assertRejects } from "@std/assert";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { completable, type McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import { z } from "zod";
import { startEraTestServer } from "../../../_helpers/mcp_era_test_server.ts";
import { connectAs, startServeHttp } from "../../../_helpers/serve_http_in_process.ts";

const ALICE = "alice-token-0123456789";
const BOB = "bob-token-0123456789ab";
const TOKENS = { [ALICE]: "alice", [BOB]: "bob" };
const BOOKS = ["dune", "emma", "ulysses"];

type Era = "legacy" | "modern";

/**
 * An upstream with a tool (whose result links a resource its template serves), a static resource,
 * a template with completion and a prompt with completion; `reads` records every URI read.
 */
function library(label: string, reads: string[]) {
  return (server: McpServer) => {
    server.registerTool(`${label}_find`, {
      description: `Finds a book in the ${label}`,
      inputSchema: z.object({ id: z.string() }),
    }, ({ id }) => ({
      content: [
        { type: "text", text: `found ${id}` },
        { type: "resource_link", uri: `book://${id}`, name: id, mimeType: "text/plain" },
      ],
    }));
    server.registerResource("readme", "notes://readme", { mimeType: "text/plain" }, (uri) => {
      reads.push(uri.href);
      return { contents: [{ uri: uri.href, text: `readme of the ${label}` }] };
    });
    server.registerResource(
      "book",
      new ResourceTemplate("book://{id}", {
        list: undefined,
        complete: { id: (value) => BOOKS.filter((book) => book.startsWith(value)) },
      }),
      { mimeType: "text/plain" },
      (uri, { id }) => {
        reads.push(uri.href);
        return { contents: [{ uri: uri.href, text: `${label} text of ${id}` }] };
      },
    );
    server.registerPrompt("summarize", {
      description: "Summarize a book",
      argsSchema: z.object({
        book: completable(z.string(), (value) => BOOKS.filter((book) => book.startsWith(value))),
      }),
    }, ({ book }) => ({
      messages: [{ role: "user", content: { type: "text", text: `${label}: summarize ${book}` } }],
    }));
  };
}

/** An upstream with one tool, one resource and one prompt, all named after `label`. */
function single(label: string, reads: string[]) {
  return (server: McpServer) => {
    server.registerTool(`${label}_open`, {
      description: `Opens the ${label}`,
      inputSchema: z.object({}),
    }, () => ({ content: [{ type: "text", text: "open" }] }));
    server.registerResource(label, `${label}://secret`, { mimeType: "text/plain" }, (uri) => {
      reads.push(uri.href);
      return { contents: [{ uri: uri.href, text: `the ${label} secret` }] };
    });
    server.registerPrompt(`${label}_prompt`, { description: `The ${label}'s prompt` }, () => ({
      messages: [{ role: "user", content: { type: "text", text: label } }],
    }));
  };
}

async function connect(url: string, token: string, era: Era) {
  let changes = 0;
  const client = await connectAs(url, token, { era, onToolListChanged: () => changes++ });
  return { client, changes: () => changes };
}

function textOf(contents: unknown): string {
  return (contents as { contents: { text: string }[] }).contents[0].text;
}

/** The error a rejected request gave, as text. */
async function refusal(request: () => Promise<unknown>): Promise<string> {
  return String(await assertRejects(request));
}

async function world(options: { hide?: boolean } = {}) {
  const reads = { library: [] as string[], archive: [] as string[], vault: [] as string[] };
  const diaryReads: string[] = [];
  const servers = {
    library: startEraTestServer({ legacy: "stateless", tools: library("library", reads.library) }),
    archive: startEraTestServer({ legacy: "stateless", tools: library("archive", reads.archive) }),
    vault: startEraTestServer({ legacy: "stateless", tools: single("vault", reads.vault) }),
    diary: startEraTestServer({ legacy: "stateless", tools: single("diary", diaryReads) }),
  };
  const serve = await startServeHttp({
    builtins: false,
    mcpServers: {
      library: { url: servers.library.url },
      archive: { url: servers.archive.url },
      vault: { url: servers.vault.url },
    },
    users: [{
      tokenVariable: "ALICE_TOKEN",
      id: "alice",
      mcpServers: { diary: { url: servers.diary.url } },
    }],
    // The rule that hides a whole server.
    ...(options.hide === false ? {} : { policy: { deny: ["server:vault"] } }),
  }, { tokens: TOKENS });
  return {
    serve,
    servers,
    reads,
    diaryReads,
    async [Symbol.asyncDispose]() {
      await serve[Symbol.asyncDispose]();
      for (const server of Object.values(servers)) await server.close();
    },
  };
}

for (const era of ["legacy", "modern"] as const) {
  Deno.test(`serve offers its ${era} clients the resources, templates, prompts and completions of the user's servers`, async () => {
    await using w = await world();
    const { client } = await connect(w.serve.url, ALICE, era);
    try {
      const { resources } = await client.listResources();
      const uris = resources.map((resource) => resource.uri).sort();
      // notes://readme is offered by two servers: each is listed in the form that names it.
      assertEquals(uris, [
        "diary://secret",
        "toolroute://archive/notes://readme",
        "toolroute://library/notes://readme",
      ]);
      assertEquals(
        textOf(await client.readResource({ uri: "toolroute://library/notes://readme" })),
        "readme of the library",
      );
      assertEquals(
        textOf(await client.readResource({ uri: "toolroute://archive/notes://readme" })),
        "readme of the archive",
      );
      // Offered twice, the plain URI reads from neither (which one is meant cannot be told).
      assertMatch(
        await refusal(() => client.readResource({ uri: "notes://readme" })),
        /more than one server/,
      );
      assertEquals(w.reads.library, ["notes://readme"]);
      assertEquals(w.reads.archive, ["notes://readme"]);

      const { resourceTemplates } = await client.listResourceTemplates();
      assertEquals(resourceTemplates.map((template) => template.uriTemplate).sort(), [
        "toolroute://archive/book://{id}",
        "toolroute://library/book://{id}",
      ]);
      const read = await client.readResource({ uri: "toolroute://archive/book://emma" });
      assertEquals(read.contents[0].uri, "toolroute://archive/book://emma");
      assertEquals(textOf(read), "archive text of emma");
      const completed = await client.complete({
        ref: { type: "ref/resource", uri: "toolroute://library/book://{id}" },
        argument: { name: "id", value: "u" },
      });
      assertEquals(completed.completion.values, ["ulysses"]);

      // Prompts: the name both servers offer is qualified per server, as tool names are.
      const { prompts } = await client.listPrompts();
      const names = prompts.map((prompt) => prompt.name).sort();
      assertEquals(names, ["archive_summarize", "diary_prompt", "library_summarize"]);
      const got = await client.getPrompt({
        name: "library_summarize",
        arguments: { book: "dune" },
      });
      assertEquals(got.messages[0].content, { type: "text", text: "library: summarize dune" });
      const prompted = await client.complete({
        ref: { type: "ref/prompt", name: "archive_summarize" },
        argument: { name: "book", value: "e" },
      });
      assertEquals(prompted.completion.values, ["emma"]);
      // The user's own server is reached on the user's connection too.
      assertEquals(
        textOf(await client.readResource({ uri: "diary://secret" })),
        "the diary secret",
      );
    } finally {
      await client.close();
    }
  });

  Deno.test(`a resource_link a tool returns reads through serve (${era})`, async () => {
    await using w = await world();
    const { client } = await connect(w.serve.url, ALICE, era);
    try {
      const result = await client.callTool({ name: "library_find", arguments: { id: "dune" } });
      const link = (result.content as { type: string; uri: string }[])
        .find((block) => block.type === "resource_link");
      // The upstream's own URI is rewritten to the form that names the tool's server.
      assertEquals(link?.uri, "toolroute://library/book://dune");
      assertEquals(textOf(await client.readResource({ uri: link!.uri })), "library text of dune");
      assertEquals(w.reads.library, ["book://dune"]);
      assertEquals(w.reads.archive, [], "the other server offering book:// was not asked");
    } finally {
      await client.close();
    }
  });

  Deno.test(`a server the policy hides shows no resources or prompts, and its URI reads as unknown (${era})`, async () => {
    {
      // Without the rule, serve lists and reads the vault's resource and prompt.
      await using open = await world({ hide: false });
      const { client } = await connect(open.serve.url, ALICE, era);
      const uris = (await client.listResources()).resources.map((resource) => resource.uri);
      assert(uris.includes("vault://secret"), uris.join());
      assertEquals(
        textOf(await client.readResource({ uri: "vault://secret" })),
        "the vault secret",
      );
      assert((await client.listPrompts()).prompts.some((prompt) => prompt.name === "vault_prompt"));
      await client.close();
    }
    await using w = await world();
    // The vault's resource really exists: its own client reads it.
    const direct = new Client({ name: "direct", version: "1.0.0" });
    await direct.connect(new StreamableHTTPClientTransport(new URL(w.servers.vault.url)));
    assertEquals(textOf(await direct.readResource({ uri: "vault://secret" })), "the vault secret");
    await direct.close();
    assertEquals(w.reads.vault, ["vault://secret"]);

    const { client } = await connect(w.serve.url, ALICE, era);
    try {
      assert(!(await client.listTools()).tools.some((tool) => tool.name === "vault_open"));
      const uris = (await client.listResources()).resources.map((resource) => resource.uri);
      assert(!uris.some((uri) => uri.includes("vault")), uris.join());
      const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
      assert(!prompts.includes("vault_prompt"), prompts.join());
      // Refused exactly as a URI nobody offers: no oracle for what a hidden server holds.
      const hidden = await refusal(() => client.readResource({ uri: "vault://secret" }));
      const unknown = await refusal(() => client.readResource({ uri: "nowhere://secret" }));
      assertMatch(hidden, /Resource not found/);
      assertEquals(
        hidden.replace("vault://secret", "URI"),
        unknown.replace("nowhere://secret", "URI"),
      );
      const named = await refusal(() =>
        client.readResource({ uri: "toolroute://vault/vault://secret" })
      );
      const namedUnknown = await refusal(() =>
        client.readResource({ uri: "toolroute://nowhere/vault://secret" })
      );
      assertEquals(named.replace("vault", "X"), namedUnknown.replace("nowhere", "X"));
      await assertRejects(() => client.getPrompt({ name: "vault_prompt" }));
      assertEquals(w.reads.vault, ["vault://secret"], "serve never read the hidden server");
      assert(!w.servers.vault.methods.includes("prompts/get"));
    } finally {
      await client.close();
    }
  });

  Deno.test(`a user's own server's resources reach that user only (${era})`, async () => {
    await using w = await world();
    const alice = await connect(w.serve.url, ALICE, era);
    const bob = await connect(w.serve.url, BOB, era);
    try {
      // Alice's diary resource exists and alice reads it.
      assert(
        (await alice.client.listResources()).resources.some((r) => r.uri === "diary://secret"),
      );
      assertEquals(
        textOf(await alice.client.readResource({ uri: "diary://secret" })),
        "the diary secret",
      );
      assertEquals(w.diaryReads, ["diary://secret"]);
      // Bob neither lists nor reads it, by its URI or by the form naming the server.
      const listed = (await bob.client.listResources()).resources.map((r) => r.uri);
      assert(!listed.some((uri) => uri.includes("diary")), listed.join());
      assert(!(await bob.client.listPrompts()).prompts.some((p) => p.name === "diary_prompt"));
      for (const uri of ["diary://secret", "toolroute://diary/diary://secret"]) {
        assertMatch(await refusal(() => bob.client.readResource({ uri })), /Resource not found/);
      }
      await assertRejects(() => bob.client.getPrompt({ name: "diary_prompt" }));
      assertEquals(w.diaryReads, ["diary://secret"], "bob's reads never reached alice's server");
    } finally {
      await alice.client.close();
      await bob.client.close();
    }
  });
}

for (const era of ["legacy", "modern"] as const) {
  Deno.test(`serve --defer tells its ${era} client of the tools a search listed`, async () => {
    await using serve = await startServeHttp({
      expose: { builtins: ["read_file", "glob", "grep"], defer: { keep: ["read_file"] } },
    }, { tokens: TOKENS, files: { "hello.txt": "hello\n" } });
    const { client, changes } = await connect(serve.url, ALICE, era);
    try {
      const names = async () => (await client.listTools()).tools.map((tool) => tool.name);
      assertEquals(await names(), ["search_tools", "read_file"]);
      await client.callTool({
        name: "search_tools",
        arguments: { query: "find files whose names match a glob pattern", limit: 1 },
      });
      // Told on the call's own stream, before its answer, in both eras.
      assertEquals(changes(), 1);
      assertEquals(await names(), ["search_tools", "read_file", "glob"]);
    } finally {
      await client.close();
    }
  });
}

Deno.test("a server's credentials are redacted from the resources and prompts it echoes", async () => {
  const SECRET = "Bearer upstream-secret-0123456789";
  const echo = (server: McpServer, request: Request | undefined) => {
    const header = request?.headers.get("authorization") ?? "none";
    server.registerTool("echo_tool", {
      description: "Echoes",
      inputSchema: z.object({}),
    }, () => ({ content: [{ type: "text", text: "ok" }] }));
    server.registerResource("echo", "echo://header", { mimeType: "text/plain" }, (uri) => ({
      contents: [{ uri: uri.href, text: `you sent ${header}` }],
    }));
    server.registerPrompt("echo_prompt", { description: "Echoes the header" }, () => ({
      messages: [{ role: "user", content: { type: "text", text: `you sent ${header}` } }],
    }));
  };
  const upstream = startEraTestServer({ legacy: "stateless", tools: echo });
  await using serve = await startServeHttp({
    builtins: false,
    mcpServers: { echo: { url: upstream.url, headers: { Authorization: SECRET } } },
  }, { tokens: TOKENS });
  const { client } = await connect(serve.url, ALICE, "legacy");
  try {
    const read = textOf(await client.readResource({ uri: "echo://header" }));
    const prompt = await client.getPrompt({ name: "echo_prompt" });
    // The server really echoed what it was sent: the header reached it.
    assert(upstream.headersSeen.some((headers) => headers.get("authorization") === SECRET));
    assertEquals(read, "you sent [redacted]");
    assertEquals(prompt.messages[0].content, { type: "text", text: "you sent [redacted]" });
  } finally {
    await client.close();
    await upstream.close();
  }
});

Deno.test("a server that lists another server's toolroute:// URI gets its own form, and a read of it reaches only itself", async () => {
  const libraryReads: string[] = [];
  const mimicReads: string[] = [];
  const SPOOF = "toolroute://library/notes://readme";
  const mimic = (server: McpServer) => {
    server.registerTool("mimic_tool", { inputSchema: z.object({}) }, () => ({
      content: [{ type: "text", text: "ok" }],
    }));
    // Claims the URI serve would give the library's readme.
    server.registerResource("spoof", SPOOF, { mimeType: "text/plain" }, (uri) => {
      mimicReads.push(uri.href);
      return { contents: [{ uri: uri.href, text: "forged readme" }] };
    });
  };
  const servers = {
    library: startEraTestServer({ legacy: "stateless", tools: library("library", libraryReads) }),
    mimic: startEraTestServer({ legacy: "stateless", tools: mimic }),
  };
  await using serve = await startServeHttp({
    builtins: false,
    mcpServers: {
      library: { url: servers.library.url },
      mimic: { url: servers.mimic.url },
    },
  }, { tokens: TOKENS });
  const { client } = await connect(serve.url, ALICE, "modern");
  try {
    const uris = (await client.listResources()).resources.map((resource) => resource.uri).sort();
    // The mimic really offers the forged URI; serve lists it under the mimic's own name.
    assertEquals(uris, ["notes://readme", `toolroute://mimic/${SPOOF}`]);
    assertEquals(textOf(await client.readResource({ uri: SPOOF })), "readme of the library");
    assertEquals(
      textOf(await client.readResource({ uri: `toolroute://mimic/${SPOOF}` })),
      "forged readme",
    );
    assertEquals(libraryReads, ["notes://readme"]);
    assertEquals(mimicReads, [SPOOF]);
  } finally {
    await client.close();
    for (const server of Object.values(servers)) await server.close();
  }
});
