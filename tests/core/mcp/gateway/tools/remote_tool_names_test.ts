import { assertEquals } from "@std/assert";
import { assignRemoteToolNames } from "../../../../../src/core/mcp/gateway/tools/remote_tool_names.ts";

const named = (servers: { serverId: string; toolNames: string[] }[]) =>
  Object.fromEntries(
    [...assignRemoteToolNames(servers)].map(([name, t]) => [name, `${t.serverId}/${t.toolName}`]),
  );

Deno.test("assignRemoteToolNames() keeps a valid, unique own name", () => {
  assertEquals(named([{ serverId: "crm", toolNames: ["find_contact", "add-note"] }]), {
    find_contact: "crm/find_contact",
    "add-note": "crm/add-note",
  });
});

Deno.test("assignRemoteToolNames() qualifies both tools when two servers of a tier clash", () => {
  assertEquals(
    named([
      { serverId: "github", toolNames: ["search", "open_pr"] },
      { serverId: "jira", toolNames: ["search"] },
    ]),
    { github_search: "github/search", open_pr: "github/open_pr", jira_search: "jira/search" },
  );
});

Deno.test("assignRemoteToolNames() qualifies names that are not valid API names", () => {
  const names = named([{ serverId: "docs", toolNames: ["get page", "x".repeat(65), "查询"] }]);
  assertEquals(names["docs_get_page"], "docs/get page");
  assertEquals(Object.keys(names).length, 3);
  for (const name of Object.keys(names)) assertEquals(/^[A-Za-z0-9_-]{1,64}$/.test(name), true);
});

Deno.test("assignRemoteToolNames() never lets a qualified name take another tool's own name", () => {
  const names = named([
    { serverId: "a", toolNames: ["b_c", "x"] },
    { serverId: "b", toolNames: ["x", "a_x"] },
  ]);
  assertEquals(Object.keys(names).length, 4);
  assertEquals(new Set(Object.values(names)).size, 4);
  // `b_c` begins with b's qualified prefix: it is a's only as `a_b_c` (see
  // remote_tool_names_attack_test.ts).
  assertEquals(names["a_b_c"], "a/b_c");
});

Deno.test("assignRemoteToolNames() ignores a tool a server lists twice and keeps names distinct", () => {
  const names = named([{ serverId: "s", toolNames: ["x y", "x_y", "x y"] }]);
  assertEquals(names, { s_x_y: "s/x y", x_y: "s/x_y" });
});
