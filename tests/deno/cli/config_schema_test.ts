import { assertEquals } from "@std/assert";
import { toolrouteConfigSchema } from "../../../src/deno/cli/config_schema.ts";
import { configSchemaText } from "../../../src/deno/cli/write_config_schema.ts";

Deno.test("toolroute.schema.json equals the schema generated from zod (run deno task schema)", async () => {
  const committed = await Deno.readTextFile(
    new URL("../../../toolroute.schema.json", import.meta.url),
  );
  assertEquals(committed, configSchemaText());
});

Deno.test("the config schema accepts a full example and its $schema key", () => {
  const result = toolrouteConfigSchema.safeParse({
    $schema: "./toolroute.schema.json",
    workspace: ".",
    readOnlyRoots: ["/usr/share/doc"],
    bash: { sandbox: "bwrap" },
    limits: { commandTimeoutMs: 10000 },
    expose: { builtins: ["read_file", "bash"], mcpServers: ["github"] },
    mcpServers: { github: { url: "https://api.example/mcp", headers: { a: "${T}" } } },
    users: { ALICE_TOKEN: { id: "alice", mcpServers: { mail: { command: "mail-mcp" } } } },
    http: { stateless: true },
  });
  assertEquals(result.success, true);
});
