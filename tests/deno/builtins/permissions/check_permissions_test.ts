import { assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import { builtinTools } from "../../../../src/deno/builtins/builtin_tools.ts";
import {
  assertNoExcess,
  checkPermissions,
} from "../../../../src/deno/builtins/permissions/check_permissions.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

// Permission queries need no file: these paths never have to exist.
const WS = "/nonexistent/toolroute/ws";
const RO = "/nonexistent/toolroute/docs";
const ENV = ["PATH", "HOME", "LANG", "TERM"];
const context = { workspace: WS, readOnlyRoots: [RO], bash: { sandbox: "none" as const } };

Deno.test({
  name: "checkPermissions() finds nothing missing or in excess under exactly denoFlags()",
  permissions: { read: [WS, RO], write: [WS], run: ["bash"], env: ENV },
  fn() {
    assertEquals(checkPermissions(context), { missing: [], excess: [] });
    assertNoExcess(context);
  },
});

Deno.test({
  name: "checkPermissions() lists each missing permission with the flag to add",
  permissions: { read: [WS], write: false, run: false, env: ["PATH"] },
  fn() {
    const report = checkPermissions({
      ...context,
      bash: { sandbox: "bwrap", env: ["PATH", "CI"] },
    });
    assertEquals(report.missing.map((gap) => gap.flag), [
      `--allow-read=${RO}`,
      `--allow-write=${WS}`,
      "--allow-run=bash",
      "--allow-run=bwrap",
      "--allow-env=CI",
    ]);
    assertEquals(report.excess, []);
  },
});

Deno.test({
  name: "checkPermissions() reports unscoped permissions as excess (as under -A)",
  permissions: { read: true, write: true, run: true, env: true, net: true, sys: true },
  fn() {
    const report = checkPermissions(context);
    assertEquals(report.missing, []);
    assertEquals(report.excess.map((gap) => gap.flag), [
      "--allow-read",
      "--allow-write",
      "--allow-run",
      "--allow-env",
      "--allow-net",
      "--allow-sys",
    ]);
  },
});

Deno.test({
  name: "checkPermissions() detects scoped grants beyond the context by probing",
  ignore: skipWithoutBwrap(),
  permissions: {
    read: ["/nonexistent/toolroute"],
    write: [WS, RO],
    run: ["bash", "bwrap"],
    env: ENV,
    net: ["127.0.0.1"],
  },
  fn() {
    assertEquals(checkPermissions(context).excess.map((gap) => gap.flag), [
      "--allow-read=/nonexistent/toolroute",
      `--allow-write=${RO}`,
      "--allow-run=bwrap",
      "--allow-net=127.0.0.1",
    ]);
  },
});

Deno.test({
  name: "builtinTools() in strict mode throws at start-up when permissions are in excess",
  permissions: { read: true, write: [WS], run: ["bash"], env: ENV },
  fn() {
    const error = assertThrows(() => builtinTools(context, { strict: true }), TypeError);
    assertStringIncludes(error.message, "strict mode");
    assertStringIncludes(error.message, "--allow-read");
    assertStringIncludes(
      error.message,
      `--allow-read=${WS},${RO} --allow-write=${WS} --allow-run=bash --allow-env=PATH,HOME,LANG,TERM --no-prompt`,
    );
    builtinTools(context);
  },
});

Deno.test({
  name: "builtinTools() in strict mode starts when the process holds exactly what it needs",
  permissions: { read: [WS, RO], write: [WS], run: ["bash"], env: ENV },
  async fn() {
    await using tools = builtinTools(context, { strict: true });
    assertEquals(tools.names.includes("bash"), true);
  },
});
