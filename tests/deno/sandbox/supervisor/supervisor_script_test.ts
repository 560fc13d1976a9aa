import { testSession } from "../_test_session.ts";
import { assert, assertEquals, assertMatch } from "@std/assert";
import {
  SUPERVISOR_FAMILIES,
  supervisorScript,
} from "../../../../src/deno/sandbox/supervisor/supervisor_script.ts";
import type { SupervisorContext } from "../../../../src/deno/sandbox/supervisor/supervisor_context.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

// Making a family's table does no I/O: only the context's functions do, and none is called.
const idle: SupervisorContext = {
  send: () => Promise.resolve(),
  processIds: () => [],
  kill: () => {},
  cgroups: [],
};

Deno.test("the supervisor's operation families name every operation once", () => {
  const seen = new Map<string, string>();
  for (const family of SUPERVISOR_FAMILIES) {
    for (const op of Object.keys(family(idle))) {
      assert(!seen.has(op), `"${op}" is in both ${seen.get(op)} and ${family.name}`);
      seen.set(op, family.name);
    }
  }
  for (const op of ["stat", "open", "read", "create", "readDir", "exec", "spawn", "net", "ping"]) {
    assert(seen.has(op), op);
  }
});

Deno.test("supervisorScript() is one data: URL carrying every family's source", () => {
  const url = supervisorScript();
  assertMatch(url, /^data:application\/javascript;base64,/);
  const source = atob(url.slice(url.indexOf(",") + 1));
  for (const family of SUPERVISOR_FAMILIES) assert(source.includes(family.toString()), family.name);
  // The search and process families' globals come first, each defined once.
  for (
    const name of ["LiteralFinder", "searchLimits", "searchFileRead", "grepPrefilter"]
  ) {
    assertEquals(source.split(`const ${name} = `).length, 2, name);
  }
  // Self-contained: nothing is imported.
  assert(!/\bimport\b/.test(source.replaceAll("Deno.", "")), "the source imports");
});

Deno.test({
  name: "the supervisor answers an unknown or inherited op name with an error and keeps serving",
  ignore: skipWithoutBwrap(),
  async fn() {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_sup_" }));
    const session = await testSession(workspace);
    try {
      const options = { timeoutMs: 5000, onTimeout: () => new Error("timeout") as never };
      for (const op of ["nope", "constructor", "__proto__", "toString"]) {
        const answer = await session.request({ op } as never, undefined, options);
        assertEquals(answer.header.error, { name: "TypeError", message: "unknown operation" }, op);
      }
      assertEquals((await session.request({ op: "ping" }, undefined, options)).header.ok, {});
    } finally {
      await session.close();
      await Deno.remove(workspace, { recursive: true });
    }
  },
});
