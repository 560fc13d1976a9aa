import { assertEquals } from "@std/assert";
import { protectedMatch } from "../../../../src/deno/builtins/paths/protected_match.ts";

Deno.test("protectedMatch() matches a bare name at any depth, any case, trailing dots and spaces", () => {
  for (const rel of [".git", "a/.git/hooks/x", "a/.GIT", "b/.git./c", "c/.git /d"]) {
    assertEquals(protectedMatch(rel, [".git"]), ".git", rel);
  }
  assertEquals(protectedMatch("a/.github/x", [".git"]), undefined);
});

Deno.test("protectedMatch() matches ./name and a/b only at that place", () => {
  assertEquals(protectedMatch("deno.json", ["./deno.json"]), "./deno.json");
  assertEquals(protectedMatch("DENO.JSON.", ["./deno.json"]), "./deno.json");
  assertEquals(protectedMatch("sub/deno.json", ["./deno.json"]), undefined);
  assertEquals(protectedMatch("tools/lib.ts", ["tools/lib.ts"]), "tools/lib.ts");
  assertEquals(protectedMatch("x/tools/lib.ts", ["tools/lib.ts"]), undefined);
});
