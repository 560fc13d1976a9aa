import { assertEquals } from "@std/assert";
import { bwrapSearchPath } from "../../../src/deno/sandbox/bwrap_search_path.ts";

const roots = [
  { source: "/data/ws", dest: "/home/u/ws" },
  { source: "/srv/docs", dest: "/srv/docs" },
];

Deno.test("bwrapSearchPath() drops PATH entries inside the roots, declared or real", () => {
  assertEquals(
    bwrapSearchPath("/home/u/ws/node_modules/.bin:/usr/bin:/data/ws/bin:/srv/docs:/bin", roots),
    "/usr/bin:/bin",
  );
});

Deno.test("bwrapSearchPath() drops relative entries and sees through dot segments", () => {
  assertEquals(
    bwrapSearchPath(".:bin::/usr/bin:/usr/../home/u/ws/x:/home/u/ws2/bin", roots),
    "/usr/bin:/home/u/ws2/bin",
  );
});

Deno.test("bwrapSearchPath() keeps a clean PATH as it is and handles a missing one", () => {
  assertEquals(bwrapSearchPath("/usr/local/bin:/usr/bin", roots), "/usr/local/bin:/usr/bin");
  assertEquals(bwrapSearchPath(undefined, roots), "");
});
