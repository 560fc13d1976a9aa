import { assertEquals } from "@std/assert";
import { dirname, fromFileUrl, join, normalize, relative, SEPARATOR } from "@std/path";

const ROOT = fromFileUrl(new URL("../../", import.meta.url));
const SRC = join(ROOT, "src") + SEPARATOR;
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

/** The relative imports of a file (type-only ones too), as absolute paths. */
function importsOf(file: string): string[] {
  return [...Deno.readTextFileSync(file).matchAll(IMPORT)].map(([, spec]) =>
    normalize(join(dirname(file), spec))
  );
}

/**
 * The imports between the nodes of one folder, each file below it mapped to its node by
 * `nodeOf`; imports of a node's own files and of files outside the folder are left out.
 */
function importGraph(folder: string, nodeOf: (path: string) => string): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of filesBelow(folder)) {
    const from = nodeOf(file);
    if (!edges.has(from)) edges.set(from, new Set());
    for (const target of importsOf(file)) {
      if (!target.startsWith(folder + SEPARATOR)) continue;
      const to = nodeOf(target);
      if (to !== from) edges.get(from)!.add(to);
    }
  }
  return edges;
}

/**
 * The groups of nodes that import one another in a circle (the graph's strongly connected
 * components of more than one node), each sorted; none when imports point one way.
 */
function cycles(edges: Map<string, Set<string>>): string[][] {
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
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
    if (group.length > 1) found.push(group.sort());
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return found.sort();
}

/** A folder's room: its subfolder (`name/`) or, for a file directly in it, the file. */
function roomOf(folder: string, path: string): string {
  const parts = relative(folder, path).split(SEPARATOR);
  return parts.length > 1 ? `${parts[0]}/` : parts[0];
}

/**
 * The cycles between the rooms of one folder: each subfolder is a room, each file directly in
 * the folder a node of its own; an edge is an import (type-only ones too) from one node into
 * another.
 */
function roomCycles(folder: string): string[][] {
  return cycles(importGraph(folder, (path) => roomOf(folder, path)));
}

/** The cycles between the files below a folder, as paths relative to it. */
function fileCycles(folder: string): string[][] {
  return cycles(importGraph(folder, (path) => relative(folder, path)));
}

/**
 * A folder's documented order: in a Markdown section that names the folder (`` `src/…/` ``)
 * first, a line `Order, lowest first: a, b < c < d.` lists its rooms in tiers, lowest first.
 * Returns each folder with its tiers of room names (`name/` or `file.ts`).
 */
function documentedOrders(markdown: string): { folder: string; tiers: string[][] }[] {
  const orders: { folder: string; tiers: string[][] }[] = [];
  for (const section of markdown.split(/^#+ /m)) {
    const folder = section.match(/`(src\/[\w/]+\/)`/)?.[1];
    const order = section.match(/^Order, lowest first: ([^]*?)\.\s*$/m)?.[1];
    if (folder === undefined || order === undefined) continue;
    // A remark in parentheses is no room.
    const tiers = order.replace(/\([^)]*\)/g, "").split(/\s+<\s+/).map((tier) =>
      [...tier.matchAll(/`([^`]+)`/g)].map(([, name]) => name)
    );
    orders.push({ folder: folder.slice(0, -1), tiers });
  }
  return orders;
}

/**
 * The imports that go against a documented order: from a room to one in its own tier or above.
 * Rooms the order does not name (what every room shares) are free.
 */
function orderBreaks(folder: string, tiers: string[][]): string[] {
  const tierOf = new Map(tiers.flatMap((tier, i) => tier.map((room) => [room, i] as const)));
  const breaks: string[] = [];
  for (const [from, targets] of importGraph(folder, (path) => roomOf(folder, path))) {
    for (const to of targets) {
      const [low, high] = [tierOf.get(to), tierOf.get(from)];
      if (low !== undefined && high !== undefined && low >= high) breaks.push(`${from} -> ${to}`);
    }
  }
  return breaks.sort();
}

/** Every folder below `src/` (itself included) that holds folders: each is a set of rooms. */
function roomFolders(dir: string): string[] {
  const subfolders = [...Deno.readDirSync(dir)].filter((entry) => entry.isDirectory);
  if (subfolders.length === 0) return [];
  return [dir, ...subfolders.flatMap((entry) => roomFolders(join(dir, entry.name)))];
}

for (const folder of roomFolders(SRC.slice(0, -1))) {
  const name = relative(ROOT, folder);
  Deno.test(`${name}: imports between its rooms point one way (no cycle)`, () => {
    assertEquals(roomCycles(folder), []);
  });
}

Deno.test("src: imports between files point one way (no file imports itself through others)", () => {
  assertEquals(fileCycles(SRC.slice(0, -1)), []);
});

/** Most lines of one file in src/: a longer file holds more than one concept; split it. */
const MAX_LINES = 400;

/** The files below a directory with more than `max` lines, as `path: lines`, sorted. */
function longFiles(dir: string, max: number): string[] {
  return filesBelow(dir).flatMap((file) => {
    const lines = Deno.readTextFileSync(file).replace(/\n$/, "").split("\n").length;
    return lines > max ? [`${relative(dir, file)}: ${lines}`] : [];
  }).sort();
}

Deno.test(`src: no file is over ${MAX_LINES} lines`, () => {
  assertEquals(longFiles(SRC.slice(0, -1), MAX_LINES), []);
});

Deno.test("longFiles() finds a file over the bound and leaves one at the bound alone", () => {
  const dir = Deno.makeTempDirSync({ prefix: "toolroute_lines_" });
  try {
    Deno.mkdirSync(join(dir, "room"));
    Deno.writeTextFileSync(join(dir, "room", "long.ts"), "x;\n".repeat(MAX_LINES + 1));
    Deno.writeTextFileSync(join(dir, "at_bound.ts"), "x;\n".repeat(MAX_LINES));
    assertEquals(longFiles(dir, MAX_LINES), [`room${SEPARATOR}long.ts: ${MAX_LINES + 1}`]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

const DOCS = [
  ...[...Deno.readDirSync(join(ROOT, "docs"))].map((entry) => join("docs", entry.name)),
  "README.md",
  "ARCHITECTURE.md",
].filter((path) => path.endsWith(".md"));
for (const doc of DOCS) {
  let text: string;
  try {
    text = Deno.readTextFileSync(join(ROOT, doc));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) continue;
    throw error;
  }
  for (const { folder, tiers } of documentedOrders(text)) {
    Deno.test(`${folder}: imports follow the order ${doc} documents`, () => {
      const rooms = new Set(
        [...Deno.readDirSync(join(ROOT, folder))].map((e) => e.isDirectory ? `${e.name}/` : e.name),
      );
      // A room the order names must exist: a renamed room makes the order stale.
      assertEquals(tiers.flat().filter((room) => !rooms.has(room)), [], "rooms named but absent");
      assertEquals(orderBreaks(join(ROOT, folder), tiers), []);
    });
  }
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

Deno.test("fileCycles() finds files that import each other through a third, type-only included", () => {
  const dir = Deno.makeTempDirSync({ prefix: "toolroute_files_" });
  try {
    Deno.mkdirSync(join(dir, "room"));
    Deno.writeTextFileSync(join(dir, "room", "gate.ts"), 'import { part } from "./part.ts";\n');
    Deno.writeTextFileSync(
      join(dir, "room", "part.ts"),
      'import type { Init } from "./init.ts";\n',
    );
    Deno.writeTextFileSync(
      join(dir, "room", "init.ts"),
      'import type { Gate } from "./gate.ts";\n',
    );
    Deno.writeTextFileSync(join(dir, "top.ts"), 'import "./room/gate.ts";\n');
    // One room: no cycle between rooms, but one between its files.
    assertEquals(roomCycles(dir), []);
    assertEquals(fileCycles(dir), [["room/gate.ts", "room/init.ts", "room/part.ts"]]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("documentedOrders() and orderBreaks() find an import up or across a documented order", () => {
  const dir = Deno.makeTempDirSync({ prefix: "toolroute_order_" });
  try {
    for (const room of ["low", "mid", "side", "high"]) Deno.mkdirSync(join(dir, room));
    Deno.writeTextFileSync(join(dir, "low", "a.ts"), 'import "../high/d.ts";\n');
    Deno.writeTextFileSync(
      join(dir, "mid", "b.ts"),
      'import "../side/c.ts";\nimport "../low/a.ts";\n',
    );
    Deno.writeTextFileSync(join(dir, "side", "c.ts"), 'import "../shared.ts";\n');
    Deno.writeTextFileSync(join(dir, "high", "d.ts"), 'import "../mid/b.ts";\n');
    Deno.writeTextFileSync(join(dir, "shared.ts"), "export {};\n");
    const markdown = "# Other\n\nOrder, lowest first: `x/` < `y/`.\n\n## Layout\n\n" +
      "`src/some/folder/` has rooms.\n\nOrder, lowest first: `low/` < `mid/`, `side/` < `high/`\n" +
      "(see `x.ts`).\n";
    const [order] = documentedOrders(markdown);
    assertEquals(documentedOrders(markdown).length, 1, "a section without a folder is no order");
    assertEquals(order, {
      folder: "src/some/folder",
      tiers: [["low/"], ["mid/", "side/"], ["high/"]],
    });
    assertEquals(orderBreaks(dir, order.tiers), ["low/ -> high/", "mid/ -> side/"]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
