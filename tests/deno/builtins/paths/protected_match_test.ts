import { assert, assertEquals } from "@std/assert";
import {
  protectedChildMatch,
  protectedMatch,
} from "../../../../src/deno/builtins/paths/protected_match.ts";

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

// The matcher before its per-list compilation and single-name path, kept to compare with.
function previousMatch(rel: string, protectedPaths: readonly string[]): string | undefined {
  const normalize = (c: string) => c.toLowerCase().replace(/[. ]+$/, "") || c.toLowerCase();
  const components = rel.split("/").map(normalize);
  const lower = components.join("/");
  return protectedPaths.find((protectedPath) => {
    const anchored = protectedPath.startsWith("./") || protectedPath.includes("/");
    const name = protectedPath.replace(/^\.\//, "").split("/").map(normalize).join("/");
    return anchored
      ? lower === name || lower.startsWith(name === "/" ? "/" : `${name}/`)
      : components.includes(name);
  });
}

// Names in the spellings the matchers fold (case, trailing dots and spaces), and protected lists
// with folders, anchored paths and repeats: both matchers are compared over them.
const NAMES = [".git", ".GIT.", ".git ", "GiT", "a", "A.", "src", "config", "secrets", ". ", "..."];
const LISTS: string[][] = [
  [".git"],
  [".git", "config/secrets", "./deno.json"],
  ["./a", "src/.git", "A", ". "],
  [],
  ["./", "secrets.", "CONFIG/SECRETS "],
];

Deno.test("protectedMatch() answers as the uncompiled matcher for names and paths, frozen lists or not", () => {
  const parts = ["", ...NAMES];
  const lists = LISTS;
  let compared = 0;
  let matched = 0;
  for (const list of lists) {
    for (const paths of [list, Object.freeze([...list])]) {
      for (const a of parts) {
        for (const b of parts) {
          for (const rel of [a, `${a}/${b}`, `src/${a}/${b}`, `config/${b}`, `${b}.json`]) {
            const expected = previousMatch(rel, paths);
            assertEquals(protectedMatch(rel, paths), expected, `${rel} in ${paths.join(",")}`);
            compared++;
            if (expected !== undefined) matched++;
          }
        }
      }
    }
  }
  assert(compared > 1000 && matched > 100, `compared ${compared}, matched ${matched}`);
});

Deno.test("protectedChildMatch() answers as protectedMatch for every entry of a folder", () => {
  const names = NAMES;
  const lists = LISTS;
  let compared = 0;
  let matched = 0;
  for (const list of lists) {
    for (const paths of [list, Object.freeze([...list])]) {
      for (const a of names) {
        for (const folder of ["", a, `${a}/src`, `src/${a}`, "config", `config/${a}/secrets`]) {
          const match = protectedChildMatch(folder, paths);
          for (const name of [...names, "deno.json", "DENO.JSON."]) {
            const rel = folder === "" ? name : `${folder}/${name}`;
            const expected = protectedMatch(rel, paths);
            assertEquals(match(name), expected, `${rel} in ${paths.join(",")}`);
            compared++;
            if (expected !== undefined) matched++;
          }
        }
      }
    }
  }
  assert(compared > 1000 && matched > 100, `compared ${compared}, matched ${matched}`);
});
