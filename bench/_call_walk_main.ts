// The measured process of `call_walk_files.ts`: a router with sandboxed built-ins, three warm-up
// calls (the session starts), then `calls` calls of one tool.
import { ToolRouter } from "../mod.ts";
import { builtinTools } from "../src/deno/mod.ts";

const [tool, calls] = [Deno.args[0], Number(Deno.args[1])];
const workspace = await Deno.makeTempDir({ prefix: "toolroute_call_walk_ws_" });
await Deno.writeTextFile(`${workspace}/small.txt`, "a\nb\nc\n");
const args = tool === "write_file" ? '{"path":"out.txt","content":"x\\n"}' : '{"path":"small.txt"}';
{
  await using router = new ToolRouter({
    builtins: builtinTools({ workspace, bash: { sandbox: "bwrap" } }),
  });
  const set = await router.expose({ builtins: [tool] });
  for (let i = 0; i < 3; i++) await set.invoke(tool, args);
  for (let i = 0; i < calls; i++) await set.invoke(tool, args);
}
await Deno.remove(workspace, { recursive: true });
