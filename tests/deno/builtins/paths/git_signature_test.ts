import { assert, assertEquals, assertFalse, assertThrows } from "@std/assert";
import {
  checkGitSignatures,
  isGitDirectorySync,
  isGitSignature,
} from "../../../../src/deno/builtins/paths/git_signature.ts";
import { ToolError } from "../../../../src/core/tool_error.ts";

Deno.test("isGitSignature() is HEAD beside objects, refs or commondir, in any case and with trailing dots", () => {
  assert(isGitSignature(["HEAD", "objects", "refs"]));
  assert(isGitSignature(["HEAD", "commondir"]));
  assert(isGitSignature(["head", "Objects."]));
  assert(isGitSignature(["HEAD ", "REFS"]));
  assertFalse(isGitSignature(["objects", "refs", "config"]));
  assertFalse(isGitSignature(["HEAD", "config", "hooks"]));
  assertFalse(isGitSignature(["HEAD.txt", "objects"]));
});

Deno.test("checkGitSignatures() counts what is on disk and what the same operation creates", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_sig_" }));
  try {
    await Deno.mkdir(`${root}/a/objects`, { recursive: true });
    const refused = (writes: { rel: string; shown: string }[]) =>
      assertThrows(() => checkGitSignatures(root, writes), ToolError);
    // Alone, each of these is allowed.
    checkGitSignatures(root, [{ rel: "b/HEAD", shown: "b/HEAD" }]);
    checkGitSignatures(root, [{ rel: "a/refs/x", shown: "a/refs/x" }]);
    // Together, or beside what is on disk, they make a repository.
    refused([{ rel: "a/HEAD", shown: "a/HEAD" }]);
    refused([{ rel: "b/HEAD", shown: "b/HEAD" }, { rel: "b/refs/x", shown: "b/refs/x" }]);
    refused([{ rel: "HEAD", shown: "HEAD" }, { rel: "objects/x", shown: "objects/x" }]);
    // Inside an existing repository, every write is refused.
    await Deno.writeTextFile(`${root}/a/HEAD`, "ref: refs/heads/main\n");
    assert(isGitDirectorySync(`${root}/a`));
    const error = assertThrows(
      () => checkGitSignatures(root, [{ rel: "a/hooks/pre-commit", shown: "a/hooks/pre-commit" }]),
      ToolError,
    );
    assertEquals(error.code, "permission_denied");
    assert(error.message.includes('"a" is a git directory'), error.message);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
