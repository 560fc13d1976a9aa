import { concat } from "@std/bytes";
import { join, relative, SEPARATOR } from "@std/path";
import type { ResultStore, StoredResultInfo } from "../../core/result_store.ts";

/** Plain bytes per sealed record; each record carries a 16-byte tag. */
const RECORD_BYTES = 64 * 1024;
const TAG_BYTES = 16;
const HANDLE = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * A {@linkcode ResultStore} in a folder: the built-in tools keep the results a budget cut in their
 * workspace's `.toolroute/results`. The folder is inside the workspace (the only place the
 * built-ins may write), where the model's own tools can list and read it, so every file is sealed
 * with AES-GCM under a key that lives only in this process's memory, bound to its handle: the
 * files are unreadable, and a changed or swapped file (its owner rewritten, say) reads as gone.
 * Results do not outlive the process; files older than their expiry are removed on the next put.
 *
 * @example Keep a result in a folder and read a part of it
 * ```ts
 * import { FileResultStore } from "@toolroute/toolroute/deno";
 * import { assertEquals } from "@std/assert";
 *
 * const dir = await Deno.makeTempDir();
 * const results = new FileResultStore(dir);
 * const bytes = new TextEncoder().encode("hello world");
 * const info = { userId: null, scope: "s", tool: "t", bytes: bytes.length, pageBytes: 100 };
 * await results.put("h1", bytes, info, { expireIn: 60_000 });
 * assertEquals(new TextDecoder().decode(await results.read("h1", 6, 11)), "world");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class FileResultStore implements ResultStore {
  #dir: string;
  #root?: string;
  #key?: Promise<CryptoKey>;
  #sweptAt = -Infinity;

  /**
   * Creates the store; nothing is written until the first put.
   *
   * @param dir The folder; made (with a `.gitignore` of `*`) on the first put.
   * @param options `root`: a folder `dir` is inside (the workspace) whose contents others may
   *   change: before each write the store checks that `dir` still resolves to the same place
   *   under the real `root` (no link planted on the way), and writes nothing otherwise.
   */
  constructor(dir: string, options: { root?: string } = {}) {
    if (typeof dir !== "string" || dir === "") {
      throw new TypeError("Cannot create a FileResultStore: pass the folder's path");
    }
    this.#dir = dir;
    this.#root = options.root;
  }

  async put(
    handle: string,
    bytes: Uint8Array,
    info: StoredResultInfo,
    options: { expireIn: number },
  ): Promise<void> {
    const name = checked(handle);
    await this.#prepare();
    await this.#sweep();
    const key = await this.#cryptoKey();
    const file = await Deno.open(this.#path(name, "data"), {
      write: true,
      createNew: true,
      mode: 0o600,
    });
    // A random prefix per file: no nonce repeats under the process's key.
    const prefix = crypto.getRandomValues(new Uint8Array(PREFIX_BYTES));
    try {
      await writeAll(file, prefix);
      for (let index = 0; index * RECORD_BYTES < bytes.length; index++) {
        const plain = bytes.subarray(index * RECORD_BYTES, (index + 1) * RECORD_BYTES);
        await writeAll(
          file,
          await seal(key, plain.slice(), nonce(prefix, index), `${name}\u0000${index}`),
        );
      }
    } finally {
      file.close();
    }
    const record = JSON.stringify({ ...info, expiresAt: Date.now() + options.expireIn });
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = await seal(key, new TextEncoder().encode(record), iv, `${name}\u0000info`);
    // The info goes last: a result is readable only once all of it is written.
    await Deno.writeFile(this.#path(name, "info"), concat([iv, sealed]), {
      mode: 0o600,
      createNew: true,
    });
  }

  async info(handle: string): Promise<StoredResultInfo | undefined> {
    if (!HANDLE.test(handle)) return undefined;
    let sealed: Uint8Array<ArrayBuffer>;
    try {
      if (!await storedFile(this.#path(handle, "info"))) return undefined;
      sealed = await Deno.readFile(this.#path(handle, "info"));
    } catch {
      return undefined;
    }
    const plain = await open(
      await this.#cryptoKey(),
      sealed.subarray(12),
      sealed.subarray(0, 12),
      `${handle}\u0000info`,
    );
    if (plain === undefined) return undefined;
    const { expiresAt, ...info } = JSON.parse(new TextDecoder().decode(plain));
    if (!(expiresAt > Date.now())) {
      await this.delete(handle);
      return undefined;
    }
    return info as StoredResultInfo;
  }

  async read(handle: string, start: number, end: number): Promise<Uint8Array | undefined> {
    if (!HANDLE.test(handle)) return undefined;
    const key = await this.#cryptoKey();
    const out = new Uint8Array(Math.max(0, end - start));
    let file: Deno.FsFile;
    try {
      if (!await storedFile(this.#path(handle, "data"))) return undefined;
      file = await Deno.open(this.#path(handle, "data"), { read: true });
    } catch {
      return undefined;
    }
    try {
      if (!(await file.stat()).isFile) return undefined;
      const prefix = await readAt(file, 0, PREFIX_BYTES);
      for (let index = Math.floor(start / RECORD_BYTES); index * RECORD_BYTES < end; index++) {
        const at = PREFIX_BYTES + index * (RECORD_BYTES + TAG_BYTES);
        const sealed = await readAt(file, at, RECORD_BYTES + TAG_BYTES);
        const plain = prefix.length < PREFIX_BYTES
          ? undefined
          : await open(key, sealed, nonce(prefix, index), `${handle}\u0000${index}`);
        if (plain === undefined) return undefined;
        const from = Math.max(start, index * RECORD_BYTES);
        const to = Math.min(end, index * RECORD_BYTES + plain.length);
        out.set(
          plain.subarray(from - index * RECORD_BYTES, to - index * RECORD_BYTES),
          from - start,
        );
      }
    } finally {
      file.close();
    }
    return out;
  }

  async delete(handle: string): Promise<void> {
    const name = checked(handle);
    for (const kind of ["info", "data"] as const) {
      await Deno.remove(this.#path(name, kind)).catch(() => {});
    }
  }

  #path(name: string, kind: "info" | "data"): string {
    return join(this.#dir, `${name}.${kind}`);
  }

  #cryptoKey(): Promise<CryptoKey> {
    return this.#key ??= crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
      "encrypt",
      "decrypt",
    ]);
  }

  async #prepare(): Promise<void> {
    if (this.#root === undefined) await Deno.mkdir(this.#dir, { recursive: true, mode: 0o700 });
    else {
      // One folder at a time below the root, none of them a link: `mkdir -p` through a link put
      // at `.toolroute` would make folders wherever it leads before the check below sees it.
      let path = this.#root;
      for (const part of relative(this.#root, this.#dir).split(SEPARATOR).filter(Boolean)) {
        path = join(path, part);
        await Deno.mkdir(path, { mode: 0o700 }).catch((error) => {
          if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
        });
        const info = await Deno.lstat(path);
        if (!info.isDirectory || info.isSymlink) {
          throw new Error(`The result folder ${this.#dir} leads elsewhere through a link`);
        }
      }
      // A model's tools can write in the workspace: a link put where the folder was would send
      // these writes (and the sweep's removals) elsewhere.
      const expected = join(await Deno.realPath(this.#root), relative(this.#root, this.#dir));
      if (await Deno.realPath(this.#dir) !== expected) {
        throw new Error(`The result folder ${this.#dir} leads elsewhere through a link`);
      }
    }
    // Kept out of the workspace's repository; an existing file is left as it is.
    await Deno.writeTextFile(join(this.#dir, ".gitignore"), "*\n", { createNew: true })
      .catch(() => {});
  }

  /**
   * Removes files no key of this process opens any more: from earlier processes, or expired. At
   * most once a minute: the router drops what it evicts itself, so this only finds leftovers.
   */
  async #sweep(): Promise<void> {
    if (Date.now() - this.#sweptAt < SWEEP_EVERY_MS) return;
    this.#sweptAt = Date.now();
    for await (const entry of Deno.readDir(this.#dir)) {
      // Only names this store makes (a handle's shape), nothing else a folder may hold.
      const match = /^(res_[a-z][0-9a-f]{32})\.info$/.exec(entry.name);
      if (match === null || !entry.isFile) continue;
      if ((await this.info(match[1])) === undefined) await this.delete(match[1]);
    }
  }
}

const PREFIX_BYTES = 8;

/**
 * Whether a path is a regular file and not a link, as this store makes them: the model's tools
 * can put a FIFO (or a link to one, or to a device) in the workspace's result folder, and opening
 * that would wait for a writer forever, holding the call and a thread of the process. Only one
 * swapped in between this check and the open could still block, that one call.
 */
async function storedFile(path: string): Promise<boolean> {
  try {
    return (await Deno.lstat(path)).isFile;
  } catch {
    return false;
  }
}
const SWEEP_EVERY_MS = 60_000;

/** A record's nonce: its file's random prefix, then its index. */
function nonce(prefix: Uint8Array, index: number): Uint8Array<ArrayBuffer> {
  const iv = new Uint8Array(12);
  iv.set(prefix);
  new DataView(iv.buffer).setUint32(PREFIX_BYTES, index);
  return iv;
}

async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  for (let written = 0; written < bytes.length;) {
    written += await file.write(bytes.subarray(written));
  }
}

/** Up to `length` bytes at `at` (fewer at the end of the file). */
async function readAt(
  file: Deno.FsFile,
  at: number,
  length: number,
): Promise<Uint8Array<ArrayBuffer>> {
  await file.seek(at, Deno.SeekMode.Start);
  const buffer = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const read = await file.read(buffer.subarray(filled));
    if (read === null) break;
    filled += read;
  }
  return buffer.subarray(0, filled);
}

function checked(handle: string): string {
  if (!HANDLE.test(handle)) {
    throw new TypeError(
      `Cannot use result handle ${JSON.stringify(handle)}: letters, digits, _ and -`,
    );
  }
  return handle;
}

// AES-GCM with `data` (the handle and the record's place) bound as additional data.
function gcm(iv: Uint8Array<ArrayBuffer>, data: string): AesGcmParams {
  return { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(data) };
}

async function seal(
  key: CryptoKey,
  plain: Uint8Array<ArrayBuffer>,
  iv: Uint8Array<ArrayBuffer>,
  data: string,
): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.encrypt(gcm(iv, data), key, plain));
}

async function open(
  key: CryptoKey,
  sealed: Uint8Array<ArrayBuffer>,
  iv: Uint8Array<ArrayBuffer>,
  data: string,
): Promise<Uint8Array | undefined> {
  return await crypto.subtle.decrypt(gcm(iv, data), key, sealed)
    .then((plain) => new Uint8Array(plain), () => undefined);
}
