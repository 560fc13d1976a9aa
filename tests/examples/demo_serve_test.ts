import { assertMatch } from "@std/assert";
import { demoServe } from "../../examples/demo_serve.ts";

Deno.test("demoServe() serves a workspace over HTTP with exact flags, lists, calls and stops", async () => {
  const lines: string[] = [];
  await demoServe((line) => lines.push(line));
  const text = lines.join("\n");
  assertMatch(
    text,
    /^deno run --allow-read=\S+ --allow-write=\S+ --allow-env=TOOLROUTE_TOKEN --allow-net=127\.0\.0\.1 --no-prompt /,
  );
  assertMatch(text, /tools\/list answered \d+ ms after the process started/);
  assertMatch(text, /tools: apply_patch, edit, glob, grep, read_file, write_file/);
  assertMatch(text, /read_file notes\.md -> # Notes \/ Ship the CLI\./);
  assertMatch(text, /write_file todo\.txt -> \{"path":"todo\.txt"/);
  assertMatch(text, /read_file \/etc\/passwd -> error: .*outside allowed roots/);
  assertMatch(text, /bash \(not exposed\) -> error: Unknown tool "bash"/);
  assertMatch(text, /server stopped \(exit code 0\)/);
});
