import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { toolrouteJsonSchema } from "../../../src/deno/cli/config_schema.ts";
import { configSchemaText } from "../../../src/deno/cli/write_config_schema.ts";
import { fromFileUrl } from "./_file_url.ts";

const SCRIPT = fromFileUrl(
  new URL("../../../src/deno/cli/write_config_schema.ts", import.meta.url),
);
const DENO_JSON = fromFileUrl(new URL("../../../deno.json", import.meta.url));

Deno.test({
  name: "configSchemaText() is the config's JSON Schema, two-space indented, with a final newline",
  permissions: "none",
  fn() {
    const text = configSchemaText();
    assert(text.endsWith("}\n"));
    assert(!text.endsWith("\n\n"));
    assertEquals(JSON.parse(text), toolrouteJsonSchema());
    assertEquals(text, JSON.stringify(JSON.parse(text), null, 2) + "\n");
    assertEquals(configSchemaText(), text, "the same text on every call");
  },
});

Deno.test("write_config_schema.ts run as a program writes toolroute.schema.json into its cwd", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolroute_schema_" });
  try {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", `--allow-write=${dir}/toolroute.schema.json`, SCRIPT],
      cwd: dir,
      stdin: "null",
    }).output();
    assertEquals(code, 0, new TextDecoder().decode(stderr));
    assertEquals(await Deno.readTextFile(`${dir}/toolroute.schema.json`), configSchemaText());
    assertEquals((await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name), [
      "toolroute.schema.json",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("write_config_schema.ts without write permission fails without prompting or writing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolroute_schema_" });
  try {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", SCRIPT],
      cwd: dir,
      stdin: "null",
    }).output();
    assertEquals(code, 1);
    assertStringIncludes(new TextDecoder().decode(stderr), "NotCapable");
    assertEquals(await Array.fromAsync(Deno.readDir(dir)), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("importing write_config_schema.ts writes nothing, even with every permission", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolroute_schema_" });
  try {
    const program = `import ${JSON.stringify(new URL(`file://${SCRIPT}`).href)};`;
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--config", DENO_JSON, program],
      cwd: dir,
      stdin: "null",
    }).output();
    assertEquals(code, 0, new TextDecoder().decode(stderr));
    assertEquals(await Array.fromAsync(Deno.readDir(dir)), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
