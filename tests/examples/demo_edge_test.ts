import { assertEquals, assertMatch } from "@std/assert";
import { demoEdge } from "../../examples/demo_edge.ts";

Deno.test({
  name: "demoEdge() lists and calls each source through the edge endpoint, and cleans up",
  permissions: { net: ["127.0.0.1"] },
  async fn() {
    const lines: string[] = [];
    await demoEdge((line) => lines.push(line));
    assertEquals(lines[1], "  tools/list → add, forecast, units_celsius_to_fahrenheit");
    const text = lines.join("\n");
    assertMatch(text, /add\(\{"a":2,"b":3\}\) → \{"sum":5\}/);
    assertMatch(text, /units_celsius_to_fahrenheit\(\{"celsius":100\}\) → 212/);
    assertMatch(text, /forecast\(\{"city":"Oslo"\}\) → \{"city":"Oslo","celsius":3,"sky":"snow"\}/);
    assertMatch(text, /reset_database\(\{\}\) → error: Unknown tool "reset_database"/);
    assertMatch(text, /add\(\{"a":"two","b":3\}\) → error: Invalid arguments for tool "add"/);
  },
});
