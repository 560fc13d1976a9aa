/**
 * Property test: over random rule sets, the three places a policy is enforced agree: the tool
 * lists (`names`, `tools`, `toAnthropic()`, `toMcp()`), serve's `tools/list`, and calls (through
 * the tool set and through serve). A simple oracle says which tools must be hidden.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { type Policy, type PolicyAction, ToolSetServer } from "../../../mod.ts";
import { Client, InMemoryTransport } from "../../../src/core/mcp/mcp_sdk.ts";
import { EVERYTHING, policyRouter } from "./_policy_fixture.ts";

const SOURCES: Record<string, string> = {
  apply_patch: "builtin",
  bash: "builtin",
  read_file: "builtin",
  write_file: "builtin",
  delete_user: "function",
  deploy: "function",
  send_email: "function",
  echo: "function",
};
const NAMES = Object.keys(SOURCES);
const ATOMS = [
  "*",
  "bash",
  "delete_*",
  "*_file",
  "e?ho",
  "d*",
  "source:builtin",
  "source:function",
  "source:global_mcp",
  "bash(git *)",
  "bash(rm:*)",
  "read_file(.env)",
  "write_file(src/**)",
  "deploy(env=prod)",
  "send_email(*@example.com)",
  "apply_patch(**)",
  "nothing_matches",
];
const ARGS: Record<string, Record<string, unknown>[]> = {
  apply_patch: [{ patch: "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch" }],
  bash: [{ command: "git status" }, { command: "rm -rf x" }, { command: "ls; git push" }],
  read_file: [{ path: ".env" }, { path: "src/a.ts" }],
  write_file: [{ path: "src/a.ts", content: "" }, { path: "b.txt", content: "" }],
  delete_user: [{ id: "1" }],
  deploy: [{ env: "prod" }, { env: "dev" }],
  send_email: [{ to: "a@example.com" }, { to: "b@example.org" }],
  echo: [{ text: "hi" }],
};

/** mulberry32: a small seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomPolicy(next: () => number): Policy {
  const pick = () => ATOMS.filter(() => next() < 0.15);
  const defaults: (PolicyAction | undefined)[] = [undefined, "allow", "ask", "deny"];
  return { deny: pick(), ask: pick(), allow: pick(), default: defaults[Math.floor(next() * 4)] };
}

/** The oracle: hidden when a plain deny rule names the tool, or the default denies and no allow or ask rule names it. */
function hiddenBy(policy: Policy | undefined, name: string): boolean {
  if (policy === undefined) return false;
  const names = (rule: string) => {
    const bare = rule.replace(/\(.*\)$/, "");
    if (bare.startsWith("source:")) return SOURCES[name] === bare.slice(7);
    return new RegExp(`^${bare.replaceAll("*", ".*").replaceAll("?", ".")}$`).test(name);
  };
  if ((policy.deny ?? []).some((rule) => !rule.includes("(") && names(rule))) return true;
  return policy.default === "deny" &&
    ![...(policy.ask ?? []), ...(policy.allow ?? [])].some(names);
}

Deno.test("over random rule sets, tool lists, serve's tools/list and calls agree", async () => {
  const next = random(20261202);
  let hiddenSeen = 0;
  let deniedSeen = 0;
  let askedSeen = 0;
  for (let round = 0; round < 60; round++) {
    const policy = randomPolicy(next);
    const request = next() < 0.5 ? randomPolicy(next) : undefined;
    const router = policyRouter({ policy });
    const toolSet = await router.expose({ ...EVERYTHING, policy: request });
    const context = JSON.stringify({ round, policy, request });
    const expected = NAMES.filter((name) => !hiddenBy(policy, name) && !hiddenBy(request, name))
      .sort();
    assertEquals(toolSet.names, expected, context);
    assertEquals(toolSet.tools.map((tool) => tool.function.name), expected, context);
    assertEquals(toolSet.toAnthropic().map((tool) => tool.name), expected, context);
    assertEquals(toolSet.toMcp().map((tool) => tool.name), expected, context);
    const missing = toolSet.missing.map((entry) => entry.name).sort();
    assertEquals(missing, NAMES.filter((name) => !expected.includes(name)).sort(), context);
    assert(toolSet.missing.every((entry) => entry.reason.includes("policy")), context);
    hiddenSeen += missing.length;

    const server = new ToolSetServer(toolSet);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "agree", version: "1.0.0" });
    await client.connect(clientSide);
    const listed = (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
    assertEquals(listed.sort(), expected, context);
    for (const name of NAMES) {
      for (const args of ARGS[name]) {
        const direct = await toolSet.call(name, args);
        const served = await client.callTool({ name, arguments: args });
        const servedText = (served.content as { text: string }[])[0].text;
        if (!expected.includes(name)) {
          assertEquals(direct.code, "unknown_tool", context);
          assert(servedText.startsWith("Unknown tool"), context);
          continue;
        }
        assert(direct.code !== "unknown_tool", context);
        assertEquals(direct.isError, served.isError === true, `${context} ${name}`);
        if (direct.code === "permission_denied") {
          deniedSeen++;
          assertEquals(servedText, direct.text, context);
        }
        if (direct.code === "approval_required") {
          askedSeen++;
          assert(servedText.includes("this client cannot be asked"), context);
        }
        if (!direct.isError) assertEquals(servedText, direct.text, context);
      }
    }
    await client.close();
    await server.close();
  }
  assert(hiddenSeen > 0 && deniedSeen > 0 && askedSeen > 0, "every outcome occurred");
});
