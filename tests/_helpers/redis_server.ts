/**
 * A real `redis-server` for the Redis store's tests, started on a free loopback port in a
 * temporary folder (no persistence) and stopped with `await using`.
 *
 * Where `redis-server` is not installed, a test is skipped with one notice line per module
 * (outside CI); under `CI=true` it runs and fails, so CI cannot hide a broken Redis store.
 *
 * Use: `Deno.test({ name, ignore: skipWithoutRedis(), fn })`.
 *
 * @module
 */

/** The command that installs Redis on Debian and Ubuntu (CI's and this project's machines). */
export const REDIS_INSTALL = "sudo apt-get install -y redis-server";

let available: boolean | undefined;
let skipped = 0;

/**
 * Whether a test that needs `redis-server` must be skipped: only outside CI without it.
 *
 * @returns `true` to skip.
 */
export function skipWithoutRedis(): boolean {
  available ??= (() => {
    try {
      return new Deno.Command("redis-server", {
        args: ["--version"],
        stdout: "null",
        stderr: "null",
      }).outputSync().success;
    } catch (error) {
      // Without the permission to look, run and report the permission error instead.
      return error instanceof Deno.errors.NotCapable;
    }
  })();
  if (available || Deno.env.get("CI") === "true") return false;
  if (skipped++ === 0) {
    addEventListener("unload", () => {
      const [tests, they] = skipped === 1 ? ["test", "it"] : ["tests", "them"];
      console.error(
        `notice: ${skipped} ${tests} skipped because redis-server is not installed; install it with "${REDIS_INSTALL}" to run ${they} (under CI=true they fail instead of skipping)`,
      );
    });
  }
  return true;
}

/** A running `redis-server`. */
export interface RedisServer extends AsyncDisposable {
  /** `redis://127.0.0.1:PORT`. */
  url: string;
}

/**
 * Starts `redis-server` on a free loopback port and waits until it accepts connections.
 *
 * @returns The server; `await using` stops it and removes its folder.
 */
export async function startRedis(): Promise<RedisServer> {
  const dir = await Deno.makeTempDir({ prefix: "toolroute_redis_" });
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const child = new Deno.Command("redis-server", {
    args: [
      "--bind",
      "127.0.0.1",
      "--port",
      String(port),
      "--dir",
      dir,
      "--save",
      "",
      "--appendonly",
      "no",
      "--protected-mode",
      "yes",
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // Already gone.
    }
    await child.status;
    await Deno.remove(dir, { recursive: true });
  };
  for (let attempt = 0;; attempt++) {
    try {
      const connection = await Deno.connect({ hostname: "127.0.0.1", port });
      connection.close();
      break;
    } catch (error) {
      if (attempt >= 100) {
        await stop();
        throw new Error(`redis-server did not start on port ${port}: ${error}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return { url: `redis://127.0.0.1:${port}`, [Symbol.asyncDispose]: stop };
}
