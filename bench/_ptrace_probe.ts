import { ToolRouter } from "../mod.ts";
import { builtinTools } from "../src/deno/mod.ts";
const ws = await Deno.realPath(await Deno.makeTempDir());
const router = new ToolRouter({ builtins: builtinTools({ workspace: ws, bash: true }) });
const set = await router.expose({ builtins: ["bash"] });
const cmd = "grep Seccomp /proc/self/status; timeout 2 strace -p 2 -e trace=none -o /dev/null; echo strace=$?; sleep 1 & timeout 2 strace -p $! -o /dev/null; echo child=$?; gdb -p 2 -batch -ex 'info pid' 2>&1 | tail -2; echo ok";
console.log(await set.invoke("bash", JSON.stringify({ command: cmd })));
await router.close();
