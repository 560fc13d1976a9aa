import { assertEquals } from "@std/assert";
import { dirname, fromFileUrl, join, normalize, relative, SEPARATOR } from "@std/path";

const SRC = fromFileUrl(new URL("../../src/", import.meta.url));
const IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;

/** Every `.ts` file below a directory, as absolute paths. */
function filesBelow(dir: string): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) found.push(...filesBelow(path));
    else if (entry.name.endsWith(".ts")) found.push(path);
  }
  return found;
}

/**
 * The cycles between the rooms of one folder: each subfolder is a room, each file directly in
 * the folder a node of its own; an edge is an import (type-only ones too) from one node into
 * another. Returns each group of nodes that import one another in a circle (the graph's strongly
 * connected components of more than one node), sorted; none when imports point one way.
 */
function roomCycles(folder: string): string[][] {
  const nodeOf = (path: string) => {
    const parts = relative(folder, path).split(SEPARATOR);
    return parts.length > 1 ? `${parts[0]}/` : parts[0];
  };
  const edges = new Map<string, Set<string>>();
  for (const file of filesBelow(folder)) {
    const from = nodeOf(file);
    if (!edges.has(from)) edges.set(from, new Set());
    for (const [, spec] of Deno.readTextFileSync(file).matchAll(IMPORT)) {
      const target = normalize(join(dirname(file), spec));
      if (!target.startsWith(folder + SEPARATOR)) continue;
      const to = nodeOf(target);
      if (to !== from) edges.get(from)!.add(to);
    }
  }
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do group.push(member = stack.pop()!); while (member !== node);
    if (group.length > 1) cycles.push(group.sort());
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles.sort();
}

/** Every folder below `src/` (itself included) that holds folders: each is a set of rooms. */
function roomFolders(dir: string): string[] {
  const subfolders = [...Deno.readDirSync(dir)].filter((entry) => entry.isDirectory);
  if (subfolders.length === 0) return [];
  return [dir, ...subfolders.flatMap((entry) => roomFolders(join(dir, entry.name)))];
}

for (const folder of roomFolders(SRC.slice(0, -1))) {
  const name = relative(fromFileUrl(new URL("../../", import.meta.url)), folder);
  Deno.test(`${name}: imports between its rooms point one way (no cycle)`, () => {
    assertEquals(roomCycles(folder), []);
  });
}

Deno.test("roomCycles() finds rooms that import each other, type-only imports included", () => {
  const dir = Deno.makeTempDirSync({ prefix: "toolroute_rooms_" });
  try {
    for (const room of ["a", "b", "c"]) Deno.mkdirSync(join(dir, room));
    Deno.writeTextFileSync(join(dir, "a", "one.ts"), 'import { two } from "../b/two.ts";\n');
    Deno.writeTextFileSync(join(dir, "b", "two.ts"), 'import type { One } from "../a/one.ts";\n');
    Deno.writeTextFileSync(join(dir, "c", "three.ts"), 'export * from "../a/one.ts";\n');
    Deno.writeTextFileSync(join(dir, "top.ts"), 'import "./c/three.ts";\n');
    assertEquals(roomCycles(dir), [["a/", "b/"]]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
