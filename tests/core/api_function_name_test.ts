import { assertEquals, assertMatch, assertNotEquals } from "@std/assert";
import { toApiFunctionName } from "../../src/core/formats.ts";
import { API_FUNCTION_NAME_PATTERN } from "../../src/core/api_function_name.ts";

Deno.test("toApiFunctionName() joins service and tool as they are when both are valid", () => {
  assertEquals(
    toApiFunctionName("weather-service", "query_weather"),
    "weather-service_query_weather",
  );
});

Deno.test("toApiFunctionName() replaces dots and spaces with underscores", () => {
  assertEquals(toApiFunctionName("my.svc", "get data"), "my_svc_get_data");
});

Deno.test("toApiFunctionName() prefixes names that do not start with a letter", () => {
  assertEquals(toApiFunctionName("9lives", "x"), "tool_9lives_x");
  assertEquals(toApiFunctionName("-dash", "x"), "tool_-dash_x");
});

Deno.test("toApiFunctionName() collapses and strips underscores", () => {
  assertEquals(toApiFunctionName("Svc", "__a__b__"), "Svc_a_b");
});

Deno.test("toApiFunctionName() keeps distinct non-ASCII inputs distinct and valid", () => {
  const a = toApiFunctionName("天气", "查询");
  const b = toApiFunctionName("天气", "搜索");
  assertNotEquals(a, b);
  assertMatch(a, API_FUNCTION_NAME_PATTERN);
  assertMatch(b, API_FUNCTION_NAME_PATTERN);
});

Deno.test("toApiFunctionName() is deterministic", () => {
  assertEquals(toApiFunctionName("天气", "查询"), toApiFunctionName("天气", "查询"));
});

Deno.test("toApiFunctionName() truncates long names to 64 characters with a distinguishing hash", () => {
  const long = "x".repeat(100);
  const a = toApiFunctionName("svc", `${long}a`);
  const b = toApiFunctionName("svc", `${long}b`);
  assertEquals(a.length <= 64, true);
  assertMatch(a, API_FUNCTION_NAME_PATTERN);
  assertNotEquals(a, b);
});

Deno.test("toApiFunctionName() gives a valid name for empty and symbol-only input", () => {
  assertMatch(toApiFunctionName("", ""), API_FUNCTION_NAME_PATTERN);
  assertMatch(toApiFunctionName("!!", "??"), API_FUNCTION_NAME_PATTERN);
  assertMatch(toApiFunctionName("😀", "x"), /^x_[a-z0-9]{8}$/);
});

Deno.test("toApiFunctionName() does not add a hash when nothing was lost", () => {
  assertEquals(toApiFunctionName("a", "b".repeat(62)), `a_${"b".repeat(62)}`);
});
