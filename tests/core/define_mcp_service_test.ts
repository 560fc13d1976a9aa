import { assertEquals, assertThrows } from "@std/assert";
import { z } from "zod";
import { defineMcpService } from "../../mod.ts";

Deno.test("defineMcpService() exposes each tool as toApiFunctionName(service, tool)", () => {
  const service = defineMcpService({
    name: "weather-service",
    description: "Weather",
    tools: {
      query_weather: {
        description: "Query",
        input: z.object({ city: z.string() }),
        run: ({ city }) => city,
      },
      "get forecast": { description: "Forecast", input: z.object({}), run: () => "sunny" },
    },
  });
  assertEquals(service.tools.map((t) => [t.name, t.origin, t.source]), [
    ["weather-service_query_weather", "weather-service/query_weather", "local_mcp"],
    ["weather-service_get_forecast", "weather-service/get forecast", "local_mcp"],
  ]);
  assertEquals(service.description, "Weather");
});

Deno.test("defineMcpService() runs tools with parsed arguments", async () => {
  const service = defineMcpService({
    name: "s",
    tools: {
      add: {
        description: "Add",
        input: z.object({ a: z.number(), b: z.number() }),
        run: ({ a, b }) => a + b,
      },
    },
  });
  assertEquals(await service.tools[0].execute({ a: 1, b: 2 }, { signal: AbortSignal.abort() }), 3);
});

Deno.test("defineMcpService() throws when two tools would get the same exposed name", () => {
  const error = assertThrows(() =>
    defineMcpService({
      name: "s",
      tools: {
        "a.b": { description: "x", input: z.object({}), run: () => "" },
        "a b": { description: "y", input: z.object({}), run: () => "" },
      },
    }), TypeError);
  assertEquals(
    error.message,
    'Cannot define MCP service "s": tools "a.b" and "a b" both become "s_a_b"; rename one',
  );
});

Deno.test("defineMcpService() throws a TypeError for a missing name, tools or handler", () => {
  // deno-lint-ignore no-explicit-any
  const bad = (spec: any) => assertThrows(() => defineMcpService(spec), TypeError);
  bad({ tools: {} });
  bad({ name: "", tools: {} });
  bad({ name: "s" });
  bad({ name: "s", tools: { t: { description: "d", input: z.object({}) } } });
  bad({ name: "s", tools: { t: { input: z.object({}), run: () => "" } } });
});
