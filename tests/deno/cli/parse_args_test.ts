import { assertEquals, assertThrows } from "@std/assert";
import { parseArgs } from "../../../src/deno/cli/parse_args.ts";
import { UsageError } from "../../../src/deno/cli/usage_error.ts";

const SPEC = { string: ["config"], optional: { http: "127.0.0.1:8787" }, boolean: ["json"] };

Deno.test("parseArgs() reads values, optional values, booleans and positionals", () => {
  assertEquals(parseArgs(["a", "--config", "c.json", "--json", "b"], SPEC, { command: "x" }), {
    flags: { config: "c.json", json: true },
    positionals: ["a", "b"],
  });
  assertEquals(parseArgs(["--config=c.json", "--http"], SPEC, { command: "x" }).flags, {
    config: "c.json",
    http: "127.0.0.1:8787",
  });
  assertEquals(parseArgs(["--http", "--json"], SPEC, { command: "x" }).flags, {
    http: "127.0.0.1:8787",
    json: true,
  });
  assertEquals(parseArgs(["--", "--json"], SPEC, { command: "x" }).positionals, ["--json"]);
  assertEquals(parseArgs(["-h"], SPEC, { command: "x" }).flags, { help: true });
});

Deno.test("parseArgs() rejects unknown, repeated and malformed flags", () => {
  assertThrows(
    () => parseArgs(["--nope"], SPEC, { command: "serve" }),
    UsageError,
    'Unknown flag "--nope" for "toolroute serve"',
  );
  assertThrows(
    () => parseArgs(["--config"], SPEC, { command: "x" }),
    UsageError,
    '"--config" needs a value',
  );
  assertThrows(() => parseArgs(["--json=1"], SPEC, { command: "x" }), UsageError, "takes no value");
  assertThrows(
    () => parseArgs(["--json", "--json"], SPEC, { command: "x" }),
    UsageError,
    "given twice",
  );
});

Deno.test("parseArgs() keeps positionals as typed and refuses an empty or inherited flag", () => {
  assertEquals(parseArgs(["007", "1e3", "-"], SPEC, { command: "call" }).positionals, [
    "007",
    "1e3",
    "-",
  ]);
  assertThrows(
    () => parseArgs(["--config="], SPEC, { command: "x" }),
    UsageError,
    '"--config" needs a value',
  );
  assertThrows(
    () => parseArgs(["--json", "-h", "--help"], SPEC, { command: "x" }),
    UsageError,
    "given twice",
  );
  for (const name of ["--__proto__", "--constructor", "--config.x", "--no-json"]) {
    assertThrows(
      () => parseArgs([name, "1"], SPEC, { command: "x" }),
      UsageError,
      `Unknown flag "${name}"`,
    );
  }
});
