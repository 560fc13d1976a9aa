import { assert, assertEquals } from "@std/assert";
import { UserConnectionPool } from "../../../../../src/core/mcp/gateway/users/user_connection_pool.ts";

class FakeConnection {
  inFlight = 0;
  lastUsedAt = performance.now();
  closed = false;
  constructor(readonly name: string) {}
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

Deno.test("UserConnectionPool reuses one connection per (user, server)", async () => {
  const pool = new UserConnectionPool<FakeConnection>({ idleMs: 60_000, maxConnections: 10 });
  const a = pool.acquire("alice", "crm", () => new FakeConnection("a"));
  assertEquals(pool.acquire("alice", "crm", () => new FakeConnection("other")), a);
  const b = pool.acquire("bob", "crm", () => new FakeConnection("b"));
  assertEquals(b.name, "b");
  assertEquals(pool.size, 2);
  await pool.remove("alice");
  assertEquals([a.closed, b.closed, pool.size], [true, false, 1]);
  await pool.close();
  assertEquals(b.closed, true);
});

Deno.test("UserConnectionPool evicts the least recently used idle connection", async () => {
  const closed: string[] = [];
  const pool = new UserConnectionPool<FakeConnection>({
    idleMs: 60_000,
    maxConnections: 2,
    onClose: (userId, serverId, reason) => closed.push(`${userId}/${serverId}:${reason}`),
  });
  const a = pool.acquire("u1", "s", () => new FakeConnection("a"));
  pool.acquire("u2", "s", () => new FakeConnection("b"));
  pool.acquire("u1", "s", () => new FakeConnection("unused"));
  pool.acquire("u3", "s", () => new FakeConnection("c"));
  assertEquals(closed, ["u2/s:evicted"]);
  a.inFlight = 1;
  pool.acquire("u4", "s", () => new FakeConnection("d"));
  assertEquals(closed, ["u2/s:evicted", "u3/s:evicted"], "a busy connection is not evicted");
  assertEquals(pool.peek("u1", "s"), a);
  await pool.close();
});

Deno.test("UserConnectionPool closes connections idle for idleMs", async () => {
  const closed: string[] = [];
  const pool = new UserConnectionPool<FakeConnection>({
    idleMs: 30,
    maxConnections: 10,
    onClose: (userId, _s, reason) => closed.push(`${userId}:${reason}`),
  });
  const busy = pool.acquire("busy", "s", () => new FakeConnection("busy"));
  busy.inFlight = 1;
  const idle = pool.acquire("idle", "s", () => new FakeConnection("idle"));
  await new Promise((resolve) => setTimeout(resolve, 120));
  assertEquals(closed, ["idle:idle"]);
  assertEquals([idle.closed, busy.closed], [true, false]);
  await pool.close();
});

Deno.test("UserConnectionPool never evicts the connection it hands out, nor any in use", async () => {
  const closed: string[] = [];
  const pool = new UserConnectionPool<FakeConnection>({
    idleMs: 60_000,
    maxConnections: 1,
    onClose: (userId, _s, reason) => closed.push(`${userId}:${reason}`),
  });
  const a = pool.acquire("u1", "s", () => new FakeConnection("a"));
  a.inFlight = 1;
  const b = pool.acquire("u2", "s", () => new FakeConnection("b"));
  assertEquals([closed, pool.size, b.closed], [[], 2, false], "over the limit while in use");
  a.inFlight = 0;
  pool.acquire("u2", "s", () => new FakeConnection("unused"));
  assertEquals([closed, pool.size], [["u1:evicted"], 1], "back to the limit once idle");
  await pool.close();
});

Deno.test("UserConnectionPool.acquire does not scan every connection while none can be idle yet, and still closes one that is", async () => {
  let reads = 0;
  class Counted {
    inFlight = 0;
    #at = performance.now();
    constructor(readonly name: string) {}
    get lastUsedAt(): number {
      reads++;
      return this.#at;
    }
    set lastUsedAt(value: number) {
      this.#at = value;
    }
    close(): Promise<void> {
      return Promise.resolve();
    }
  }
  const closed: string[] = [];
  const pool = new UserConnectionPool<Counted>({
    idleMs: 200,
    maxConnections: 10_000,
    onClose: (userId, _s, reason) => closed.push(`${userId}:${reason}`),
  });
  for (let u = 0; u < 2000; u++) {
    pool.acquire(`u${u}`, "s", () => new Counted(`c${u}`));
    pool.acquire(`u${u}`, "s", () => new Counted("unused"));
  }
  // A scan per acquire would read 4 million times; a bound per new connection reads 2 000.
  assert(reads < 20_000, `read lastUsedAt ${reads} times`);
  const old = pool.acquire("old", "s", () => new Counted("old"));
  old.lastUsedAt = performance.now() - 1_000;
  await pool.remove("u0");
  const started = performance.now();
  while (performance.now() - started < 250) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  pool.acquire("late", "s", () => new Counted("late"));
  assert(closed.includes("old:idle"));
  await pool.close();
});

class ParkableConnection extends FakeConnection {
  holdsClient = true;
  get parkable(): boolean {
    return this.holdsClient && this.inFlight === 0;
  }
  park(): void {
    this.holdsClient = false;
  }
}

Deno.test("UserConnectionPool parks a connection idle for parkMs, keeps it open, and not one in use", async () => {
  const pool = new UserConnectionPool<ParkableConnection>({
    idleMs: 60_000,
    parkMs: 20,
    maxConnections: 10,
  });
  const idle = pool.acquire("idle", "s", () => new ParkableConnection("idle"));
  const busy = pool.acquire("busy", "s", () => new ParkableConnection("busy"));
  busy.inFlight = 1;
  while (idle.holdsClient) await new Promise((resolve) => setTimeout(resolve, 10));
  assertEquals([idle.closed, busy.holdsClient, pool.size], [false, true, 2]);
  // Used again (its client built again), it is parked again once idle.
  idle.holdsClient = true;
  assertEquals(pool.acquire("idle", "s", () => new ParkableConnection("other")), idle);
  busy.inFlight = 0;
  while (idle.holdsClient || busy.holdsClient) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assertEquals([idle.closed, busy.closed], [false, false]);
  await pool.close();
});

Deno.test("UserConnectionPool with parking: a use reads no other connection, and idle ones are still parked and closed", async () => {
  let reads = 0;
  class Counted {
    inFlight = 0;
    #at = performance.now();
    constructor(readonly name: string) {}
    // Not parkable (a stdio server's, or one holding an event stream): the timer is due only
    // at the far idle time, and each use wants it at the near park time.
    get parkable(): boolean {
      reads++;
      return false;
    }
    park(): void {}
    get lastUsedAt(): number {
      reads++;
      return this.#at;
    }
    close(): Promise<void> {
      return Promise.resolve();
    }
  }
  const closed: string[] = [];
  const pool = new UserConnectionPool<Counted>({
    idleMs: 600_000,
    parkMs: 60_000,
    maxConnections: 10_000,
    onClose: (userId, _s, reason) => closed.push(`${userId}:${reason}`),
  });
  for (let u = 0; u < 2000; u++) {
    pool.acquire(`u${u}`, "s", () => new Counted(`c${u}`));
    pool.acquire(`u${u}`, "s", () => new Counted("unused"));
  }
  // A scan of the pool per use (to set the timer) would read millions of times; with none, a new
  // connection is read once (its idle bound) and a reused one not at all.
  assert(reads <= 2_000, `read parkable or lastUsedAt ${reads} times for 4 000 uses`);
  await pool.close();

  // The behaviour that the scan served is kept: an idle connection is parked, a longer idle one
  // closed, one in use neither, while uses keep coming.
  const small = new UserConnectionPool<ParkableConnection>({
    idleMs: 150,
    parkMs: 20,
    maxConnections: 10,
    onClose: (userId, _s, reason) => closed.push(`${userId}:${reason}`),
  });
  const idle = small.acquire("idle", "s", () => new ParkableConnection("idle"));
  const busy = small.acquire("busy", "s", () => new ParkableConnection("busy"));
  busy.inFlight = 1;
  while (idle.holdsClient) {
    small.acquire("busy", "s", () => new ParkableConnection("other"));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assertEquals([idle.closed, busy.holdsClient], [false, true]);
  while (!idle.closed) await new Promise((resolve) => setTimeout(resolve, 10));
  assertEquals([closed, busy.closed, small.size], [["idle:idle"], false, 1]);
  await small.close();
});

Deno.test("UserConnectionPool tells users and servers apart by key alone, whatever their ids hold", async () => {
  // The pool keeps no record per entry: user and server are read back from the key. Ids made to
  // look like another user's key must not reach that user's connection, on removal or close.
  const closed: string[] = [];
  const pool = new UserConnectionPool<FakeConnection>({
    idleMs: 60_000,
    maxConnections: 3,
    onClose: (userId, serverId, reason) => closed.push(`${userId}|${serverId}|${reason}`),
  });
  const plain = pool.acquire("u", "s", () => new FakeConnection("plain"));
  const tricky = pool.acquire("u\u0000s", "x", () => new FakeConnection("tricky"));
  const colon = pool.acquire("1:u", "s:\u0000t", () => new FakeConnection("colon"));
  assertEquals(pool.peek("u", "s\u0000x"), undefined);
  await pool.remove("u");
  assertEquals([plain.closed, tricky.closed, colon.closed], [true, false, false]);
  await pool.removeServer("x");
  assertEquals([tricky.closed, colon.closed], [true, false]);
  for (const user of ["a", "b", "c"]) pool.acquire(user, "s", () => new FakeConnection(user));
  assertEquals(closed, ["1:u|s:\u0000t|evicted"], "the evicted entry's user and server, exactly");
  await pool.close();
});
