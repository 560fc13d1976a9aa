import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { editedSize } from "../../../../src/deno/builtins/patch/edit.ts";
import { makeFixture, SECRET } from "../_fixture.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";
import { run, sandboxed, searchTools } from "../search/_search_fixture.ts";
import type { BuiltinContext } from "@toolroute/toolroute/deno";

for (
  const [label, wrap] of [["", (c: BuiltinContext) => c], [" in the sandbox", sandboxed]] as const
) {
  Deno.test({
    name: `edit${label} replaces one exact occurrence, or all with replaceAll, atomically`,
    ignore: label !== "" && skipWithoutBwrap(),
    fn: async () => {
      await using f = await makeFixture();
      const file = `${f.workspace}/src/a.ts`;
      await Deno.mkdir(`${f.workspace}/src`);
      await Deno.writeTextFile(file, "let a = 1;\nlet b = 1;\nconst c = a + b;\n");
      await Deno.chmod(file, 0o640);
      await using s = await searchTools(wrap(f.context));
      assertEquals(
        await run(s.tools, "edit", { path: "src/a.ts", oldString: "const c", newString: "let c" }),
        { path: "src/a.ts", replacements: 1 },
      );
      assertEquals(
        await run(s.tools, "edit", {
          path: "src/a.ts",
          oldString: "let",
          newString: "var",
          replaceAll: true,
        }),
        { path: "src/a.ts", replacements: 3 },
      );
      // "$&" and friends are inserted literally.
      await run(s.tools, "edit", { path: "src/a.ts", oldString: "a + b", newString: "$& + $1" });
      assertEquals(await Deno.readTextFile(file), "var a = 1;\nvar b = 1;\nvar c = $& + $1;\n");
      assertEquals((await Deno.stat(file)).mode! & 0o777, 0o640, "permission bits are kept");
      const names = [...Deno.readDirSync(`${f.workspace}/src`)].map((e) => e.name);
      assertEquals(names, ["a.ts"], "no temporary file is left behind");
    },
  });

  Deno.test({
    name:
      `edit${label} says how many occurrences there are when oldString is missing or not unique`,
    ignore: label !== "" && skipWithoutBwrap(),
    fn: async () => {
      await using f = await makeFixture();
      await Deno.writeTextFile(`${f.workspace}/x.txt`, "same\nsame\n");
      await using s = await searchTools(wrap(f.context));
      const twice = await s.tools.call("edit", {
        path: "x.txt",
        oldString: "same",
        newString: "x",
      });
      assertEquals(twice.code, "tool_error");
      assertStringIncludes(
        twice.text,
        "found 2 occurrences; pass replaceAll or include more context",
      );
      const none = await s.tools.call("edit", {
        path: "x.txt",
        oldString: "other",
        newString: "x",
      });
      assertEquals(none.code, "tool_error");
      assertStringIncludes(none.text, "found 0 occurrences");
      assertEquals(await Deno.readTextFile(`${f.workspace}/x.txt`), "same\nsame\n");
      const missing = await s.tools.call("edit", {
        path: "nope.txt",
        oldString: "a",
        newString: "b",
      });
      assertEquals(missing.code, "tool_error");
      assertStringIncludes(missing.text, 'Edit failed on "nope.txt": it does not exist');
    },
  });

  Deno.test({
    name: `edit${label} refuses read-only roots, protected paths, outside paths and symlinks out`,
    ignore: label !== "" && skipWithoutBwrap(),
    fn: async () => {
      await using f = await makeFixture();
      await Deno.mkdir(`${f.workspace}/.git`);
      await Deno.writeTextFile(`${f.workspace}/.git/config`, "[core]\n");
      await Deno.symlink(`${f.outside}/secret.txt`, `${f.workspace}/link.txt`);
      await using s = await searchTools(wrap(f.context));
      const cases: [string, string][] = [
        [`${f.readOnly}/ro.txt`, "is read-only"],
        [".git/config", "is protected from writes"],
        ["../outside/secret.txt", "outside allowed roots"],
        [`${f.sibling}/secret.txt`, "outside allowed roots"],
        ["link.txt", "outside allowed roots"],
      ];
      for (const [path, text] of cases) {
        const result = await s.tools.call("edit", { path, oldString: "r", newString: "x" });
        assertEquals(result.code, "permission_denied", path);
        assertStringIncludes(result.text, text);
      }
      assertEquals(await Deno.readTextFile(`${f.readOnly}/ro.txt`), "read only\n");
      assertEquals(await Deno.readTextFile(`${f.outside}/secret.txt`), `${SECRET}\n`);
      assertEquals(await Deno.readTextFile(`${f.workspace}/.git/config`), "[core]\n");
    },
  });
}

Deno.test("edit refuses an empty oldString or one equal to newString, and non-text files", async () => {
  await using f = await makeFixture();
  await Deno.writeFile(`${f.workspace}/bin`, new Uint8Array([97, 0, 98]));
  await using s = await searchTools(f.context);
  const same = await s.tools.call("edit", { path: "hello.txt", oldString: "hi", newString: "hi" });
  assertEquals(same.code, "invalid_arguments");
  assertStringIncludes(same.text, '"oldString" and "newString" are the same');
  const empty = await s.tools.call("edit", { path: "hello.txt", oldString: "", newString: "x" });
  assertEquals(empty.code, "invalid_arguments");
  assertStringIncludes(empty.text, "use write_file");
  const binary = await s.tools.call("edit", { path: "bin", oldString: "a", newString: "x" });
  assertEquals(binary.code, "tool_error");
  assertStringIncludes(binary.text, "not a text file");
  const wrongType = await s.tools.call("edit", { path: "hello.txt", oldString: 1, newString: "x" });
  assertEquals(wrongType.code, "invalid_arguments");
});

Deno.test("edit matches oldString written with \\n in a file with Windows line endings", async () => {
  await using f = await makeFixture();
  await Deno.writeTextFile(`${f.workspace}/win.txt`, "one\r\ntwo\r\nthree\r\n");
  await using s = await searchTools(f.context);
  const result = await run(s.tools, "edit", {
    path: "win.txt",
    oldString: "one\ntwo",
    newString: "1\n2",
  });
  assertEquals(result, { path: "win.txt", replacements: 1 });
  assertEquals(await Deno.readTextFile(`${f.workspace}/win.txt`), "1\r\n2\r\nthree\r\n");
});

for (
  const [label, wrap] of [["", (c: BuiltinContext) => c], [" in the sandbox", sandboxed]] as const
) {
  Deno.test({
    name:
      `edit${label} refuses a replaceAll whose result would pass the size limit, before building it`,
    ignore: label !== "" && skipWithoutBwrap(),
    fn: async () => {
      await using f = await makeFixture();
      // The attack: a 4 MiB file and one call under 1 KB that would make it 480 MiB.
      const file = `${f.workspace}/big.txt`;
      const original = "a".repeat(4 * 1024 * 1024);
      await Deno.writeTextFile(file, original);
      assertEquals((await Deno.stat(file)).size, 4 * 1024 * 1024, "the 4 MiB file was written");
      await using s = await searchTools(wrap(f.context));
      const before = Deno.memoryUsage().rss;
      const result = await s.tools.call("edit", {
        path: "big.txt",
        oldString: "a",
        newString: "b".repeat(120),
        replaceAll: true,
      });
      const grown = Deno.memoryUsage().rss - before;
      assertEquals(result.isError, true, result.text);
      assertEquals(result.code, "invalid_arguments");
      // The refusal names the size computed before building (every occurrence was counted)
      // and the limit: 4 Mi replacements of 1 byte by 120 bytes.
      assertStringIncludes(
        result.text,
        `the result would be ${4 * 1024 * 1024 * 120} bytes (${4 * 1024 * 1024} replacements)`,
      );
      assertStringIncludes(result.text, `over the ${16 * 1024 * 1024}-byte limit`);
      assertStringIncludes(result.text, "Nothing was changed");
      // No string of hundreds of MiB was built: the host grew by far less than the 480 MiB.
      assert(grown < 200 * 1024 * 1024, `the host grew by ${grown} bytes`);
      assertEquals(await Deno.readTextFile(file), original, "nothing was written");
      // Within the bound, the same replaceAll runs.
      await Deno.writeTextFile(file, "a".repeat(1024));
      assertEquals(
        await run(s.tools, "edit", {
          path: "big.txt",
          oldString: "a",
          newString: "b".repeat(120),
          replaceAll: true,
        }),
        { path: "big.txt", replacements: 1024 },
      );
      assertEquals(await Deno.readTextFile(file), "b".repeat(120 * 1024));
    },
  });
}

Deno.test("editedSize() counts UTF-8 bytes of the result without building it", () => {
  assertEquals(editedSize("aé😀a", { count: 2, oldString: "a", newString: "€" }), 2 + 4 + 6);
  assertEquals(editedSize("x".repeat(10), { count: 10, oldString: "x", newString: "" }), 0);
});
