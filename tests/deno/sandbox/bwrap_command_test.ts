import { assert, assertEquals } from "@std/assert";
import { bwrapCommand } from "../../../src/deno/sandbox/bwrap_command.ts";

const args = bwrapCommand({
  workspace: { source: "/data/ws", dest: "/tmp/ws" },
  readOnlyRoots: [
    { source: "/srv/docs", dest: "/srv/docs" },
    { source: "/tmp/ws/vendor", dest: "/tmp/ws/vendor" },
  ],
  cwd: "/tmp/ws/src",
  command: ["bash", "-c", "ls"],
});

function indexOfMount(kind: string, dest: string): number {
  return args.findIndex((arg, i) => arg === kind && args[i + 2] === dest);
}

Deno.test("bwrapCommand() unshares every namespace, dies with its parent and starts a new session", () => {
  assertEquals(args.slice(0, 3), ["--unshare-all", "--die-with-parent", "--new-session"]);
  assert(!args.includes("--share-net"));
  assertEquals(args.slice(-6), ["--chdir", "/tmp/ws/src", "--", "bash", "-c", "ls"]);
});

Deno.test("bwrapCommand() drops every capability and makes /proc read-only after mounting it", () => {
  const drop = args.indexOf("--cap-drop");
  assertEquals(args.slice(drop, drop + 2), ["--cap-drop", "ALL"]);
  const proc = args.findIndex((arg, i) => arg === "--proc" && args[i + 1] === "/proc");
  const remount = args.findIndex((arg, i) => arg === "--remount-ro" && args[i + 1] === "/proc");
  assert(proc >= 0 && remount > proc, "/proc is remounted read-only after it is mounted");
  assert(remount < args.indexOf("--chdir"));
});

Deno.test("bwrapCommand() binds the workspace read-write and the roots and system read-only", () => {
  assert(indexOfMount("--bind", "/tmp/ws") >= 0);
  assertEquals(args[indexOfMount("--bind", "/tmp/ws") + 1], "/data/ws", "bound from its real path");
  assert(indexOfMount("--ro-bind-try", "/srv/docs") >= 0);
  assert(indexOfMount("--ro-bind-try", "/usr") >= 0);
  assert(indexOfMount("--ro-bind-try", "/etc/ld.so.cache") >= 0);
  const binds = args.filter((arg) => arg === "--bind");
  assertEquals(binds.length, 1, "only the workspace is writable");
  const dests = args.filter((_, i) => args[i - 2]?.startsWith("--") && args[i - 2] !== "--chdir");
  for (const hidden of ["/root", "/home", "/etc", "/var", "/run", "/"]) {
    assert(!dests.includes(hidden), `${hidden} must not be visible`);
  }
});

Deno.test("bwrapCommand() mounts parents first: the fresh /tmp, then the workspace, then roots inside it", () => {
  const tmpfs = args.findIndex((arg, i) => arg === "--tmpfs" && args[i + 1] === "/tmp");
  assert(tmpfs >= 0 && tmpfs < indexOfMount("--bind", "/tmp/ws"));
  assert(indexOfMount("--bind", "/tmp/ws") < indexOfMount("--ro-bind-try", "/tmp/ws/vendor"));
  const proc = args.findIndex((arg, i) => arg === "--proc" && args[i + 1] === "/proc");
  const dev = args.findIndex((arg, i) => arg === "--dev" && args[i + 1] === "/dev");
  assert(proc >= 0 && dev >= 0);
});

Deno.test("bwrapCommand() puts no environment value in the arguments", () => {
  assert(!args.some((arg) => arg === "--setenv" || arg === "--clearenv"));
});

Deno.test("bwrapCommand() binds protected paths read-only after the workspace", () => {
  const withGit = bwrapCommand({
    workspace: { source: "/data/ws", dest: "/tmp/ws" },
    readOnlyRoots: [],
    protectedPaths: [{ source: "/data/ws/.git", dest: "/tmp/ws/.git" }],
    cwd: "/tmp/ws",
    command: ["bash", "-c", "true"],
  });
  const bind = withGit.findIndex((arg, i) => arg === "--bind" && withGit[i + 2] === "/tmp/ws");
  const git = withGit.findIndex((arg, i) =>
    arg === "--ro-bind-try" && withGit[i + 2] === "/tmp/ws/.git"
  );
  assert(bind >= 0 && git > bind);
  assertEquals(withGit[git + 1], "/data/ws/.git");
});
