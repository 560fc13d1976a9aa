import { assert, assertEquals, assertMatch, assertRejects } from "@std/assert";
import { join } from "@std/path";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../../mod.ts";
import { grantsCommand } from "../../../src/deno/cli/grants_command.ts";
import { terminalApprover } from "../../../src/deno/cli/terminal_approval.ts";
import { SqliteStore } from "../../../src/deno/store/sqlite_store.ts";
import { UsageError } from "../../../src/deno/cli/usage_error.ts";
import {
  APPROVAL_SECRET_VARIABLE,
  sharedApprovalSecret,
} from "../../../src/deno/cli/approval_secret.ts";
import { EncryptedStore } from "../../../src/core/store/encrypted_store.ts";
import { STORE_KEY_VARIABLE } from "../../../src/deno/cli/served_store.ts";

const SECRET = "the operator's approval secret";

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { out: (line: string) => out.push(line), err: (line: string) => err.push(line) },
  };
}

Deno.test("the terminal offers once / session / always / no; session and always make grants", async () => {
  const answers = ["s", "a", "once", "n not now"];
  const questions: string[] = [];
  const approve = terminalApprover((question) => {
    questions.push(question);
    return Promise.resolve(answers.shift() ?? null);
  });
  const request = {
    id: "1",
    tool: "send",
    arguments: {},
    rule: "send",
    source: "function" as const,
    description: "",
    summary: "",
    shown: "to: bob",
    shownDigest: "sha256-x",
    signal: new AbortController().signal,
  };
  assertEquals(await approve(request), {
    approved: true,
    shownDigest: "sha256-x",
    scope: "session",
  });
  assertEquals(await approve(request), {
    approved: true,
    shownDigest: "sha256-x",
    scope: "always",
  });
  assertEquals(await approve(request), { approved: true, shownDigest: "sha256-x" });
  assertEquals(await approve(request), { approved: false, reason: "not now" });
  assertMatch(questions[0], /\[once\/session\/always\/No\] $/);
});

Deno.test("toolroute grants ls and revoke read and end the grants a router keeps in a SQLite store", async () => {
  const dir = await Deno.makeTempDir();
  const file = join(dir, "store.db");
  const previous = Deno.env.get(APPROVAL_SECRET_VARIABLE);
  try {
    {
      using store = new SqliteStore(file);
      let asked = 0;
      const router = new ToolRouter({
        functions: [defineTool({
          name: "send",
          description: "Sends",
          input: z.object({ to: z.string() }),
          run: ({ to }) => `sent to ${to}`,
        })],
        policy: { ask: ["send"] },
        store,
        approvalSecret: SECRET,
        approve: () => (asked++, { approved: true, scope: "always" }),
      });
      const tools = await router.expose({ functions: ["send"], userId: "alice" });
      await tools.call("send", { to: "bob" });
      assertEquals(asked, 1);
    }
    const { out, err, io } = capture();
    // Without the variable, grants ls checks signatures with the secret kept in the store (what
    // serve --store signs with by default): this grant was signed with another, so it is not listed.
    Deno.env.delete(APPROVAL_SECRET_VARIABLE);
    assertEquals(await grantsCommand({ flags: { store: file }, positionals: ["ls"] }, io), 0);
    assertEquals([out.length, err.at(-1)], [0, "toolroute: no grants"]);
    Deno.env.set(APPROVAL_SECRET_VARIABLE, SECRET);
    assertEquals(
      await grantsCommand({ flags: { store: file, user: "alice" }, positionals: ["ls"] }, io),
      0,
    );
    assertEquals(out.length, 1);
    const [id, user, tool, rule, scope, until] = out[0].split("  ");
    assertEquals([user, tool, rule, scope, until], [
      "alice",
      "send",
      '"send"',
      "always",
      "until revoked",
    ]);
    Deno.env.set(APPROVAL_SECRET_VARIABLE, "another secret entirely, long enough");
    assertEquals(
      await grantsCommand({ flags: { store: file, json: true }, positionals: ["ls"] }, io),
      0,
    );
    assertEquals(JSON.parse(out[1]), [], "a grant that does not verify is not listed");
    assertEquals(
      await grantsCommand({ flags: { store: file }, positionals: ["revoke", id] }, io),
      0,
    );
    assertEquals(
      await grantsCommand({ flags: { store: file }, positionals: ["revoke", id] }, io),
      1,
    );
    Deno.env.set(APPROVAL_SECRET_VARIABLE, SECRET);
    assertEquals(
      await grantsCommand({ flags: { store: file, json: true }, positionals: ["ls"] }, io),
      0,
    );
    assertEquals(JSON.parse(out[2]), []);
    await assertRejects(
      () => grantsCommand({ flags: {}, positionals: ["ls"] }, io),
      UsageError,
      "--store",
    );
    await assertRejects(
      () => grantsCommand({ flags: { store: file }, positionals: ["drop"] }, io),
      UsageError,
    );
    assert(true);
  } finally {
    if (previous === undefined) Deno.env.delete(APPROVAL_SECRET_VARIABLE);
    else Deno.env.set(APPROVAL_SECRET_VARIABLE, previous);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("toolroute grants ls and revoke read a store that serve sealed with TOOLROUTE_STORE_KEY", async () => {
  const dir = await Deno.makeTempDir();
  const file = join(dir, "store.db");
  const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
  const previous = [APPROVAL_SECRET_VARIABLE, STORE_KEY_VARIABLE].map((name) => Deno.env.get(name));
  try {
    Deno.env.delete(APPROVAL_SECRET_VARIABLE);
    {
      // What serve --store does with the key set: the approval secret and the grants are sealed.
      using sqlite = new SqliteStore(file);
      const store = new EncryptedStore(sqlite, key);
      const router = new ToolRouter({
        functions: [defineTool({
          name: "send",
          description: "Sends",
          input: z.object({ to: z.string() }),
          run: ({ to }) => `sent to ${to}`,
        })],
        policy: { ask: ["send"] },
        store,
        approvalSecret: await sharedApprovalSecret(store),
        approve: () => ({ approved: true, scope: "always" }),
      });
      const tools = await router.expose({ functions: ["send"], userId: "alice" });
      await tools.call("send", { to: "bob" });
      // The store really holds sealed values: read plain, the secret is not a string.
      assert(typeof (await sqlite.get(["approvals", "secret"])) !== "string");
    }
    Deno.env.set(STORE_KEY_VARIABLE, key);
    const { out, io } = capture();
    assertEquals(await grantsCommand({ flags: { store: file }, positionals: ["ls"] }, io), 0);
    assertEquals(out.length, 1);
    const [id, user, tool] = out[0].split("  ");
    assertEquals([user, tool], ["alice", "send"]);
    assertEquals(
      await grantsCommand({ flags: { store: file }, positionals: ["revoke", id] }, io),
      0,
    );
    assertEquals(
      await grantsCommand({ flags: { store: file, json: true }, positionals: ["ls"] }, io),
      0,
    );
    assertEquals(JSON.parse(out[1]), []);
  } finally {
    [APPROVAL_SECRET_VARIABLE, STORE_KEY_VARIABLE].forEach((name, i) => {
      if (previous[i] === undefined) Deno.env.delete(name);
      else Deno.env.set(name, previous[i]!);
    });
    await Deno.remove(dir, { recursive: true });
  }
});
