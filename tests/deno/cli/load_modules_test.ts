import { assertEquals, assertRejects } from "@std/assert";
import { loadModules } from "../../../src/deno/cli/load_modules.ts";
import { UsageError } from "../../../src/deno/cli/usage_error.ts";

const REPO_MOD = new URL("../../../mod.ts", import.meta.url).href;

Deno.test("loadModules() collects function tools and local services, also from arrays", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/tools.ts`,
      `import { defineMcpService, defineTool } from "${REPO_MOD}";
import { z } from "zod";
const a = defineTool({ name: "a", description: "A", input: z.object({}), run: () => "a" });
const b = defineTool({ name: "b", description: "B", input: z.object({}), run: () => "b" });
export const all = [a, b];
export const notes = defineMcpService({
  name: "notes",
  tools: { list: { description: "List", input: z.object({}), run: () => [] } },
});
export const version = "1.0";
`,
    );
    const loaded = await loadModules([`${dir}/tools.ts`]);
    assertEquals(loaded.functions.map((tool) => tool.name), ["a", "b"]);
    assertEquals(loaded.mcpServices.map((service) => service.name), ["notes"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loadModules() says which module is missing or exports no tools", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await assertRejects(() => loadModules([`${dir}/missing.ts`]), UsageError, "Cannot load module");
    await Deno.writeTextFile(`${dir}/empty.ts`, "export const x = 1;\n");
    await assertRejects(
      () => loadModules([`${dir}/empty.ts`]),
      UsageError,
      "exports no tools; export values made by defineTool() or defineMcpService()",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
