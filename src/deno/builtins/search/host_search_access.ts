import { HostTree } from "./host_tree.ts";
import { MAX_SEARCH_BYTES, type SearchAccess } from "./search_access.ts";

/**
 * The searches' access to the host's file system (bash off or not sandboxed): the tree is read
 * folder by folder as the walk goes, files one by one with synchronous reads.
 *
 * Requires `allow-read` permission for the roots.
 *
 * @tags allow-read
 * @returns The search access.
 */
export function hostSearchAccess(): SearchAccess {
  return Object.freeze({
    where: "host" as const,
    list: (root: string) => Promise.resolve(new HostTree(root)),
    async read(
      root: string,
      request: { files: readonly string[]; budget: { tick(): Promise<void> } },
      onFile: (path: string, data: Uint8Array | undefined) => boolean | void,
    ): Promise<void> {
      const buffer = new Uint8Array(64 * 1024);
      for (const path of request.files) {
        await request.budget.tick();
        const full = path === "" ? root : `${root}/${path}`;
        if (onFile(path, readBounded(full, buffer)) === true) return;
      }
    },
  });
}

/**
 * Reads a file up to the size limit. A read that fills less than the buffer is taken as the end of
 * the (regular) file, which spares most files their second read; a file that goes on past its
 * first 64 KiB stops there when those hold a NUL byte (a binary file, which the caller skips), and
 * otherwise is read whole without looking for NUL bytes (the caller does, when it needs to).
 */
function readBounded(path: string, buffer: Uint8Array): Uint8Array | undefined {
  try {
    using file = Deno.openSync(path, { read: true });
    const first = file.readSync(buffer) ?? 0;
    // Most files fit the shared buffer, and are copied once (valid until the next file is read).
    if (first < buffer.length) return buffer.subarray(0, first);
    if (buffer.includes(0)) return buffer;
    const chunks: Uint8Array[] = [buffer.slice()];
    let length = first;
    for (;;) {
      const chunk = new Uint8Array(256 * 1024);
      const read = file.readSync(chunk);
      if (read === null) break;
      length += read;
      if (length > MAX_SEARCH_BYTES) return undefined;
      chunks.push(chunk.subarray(0, read));
    }
    const all = new Uint8Array(length);
    let at = 0;
    for (const chunk of chunks) {
      all.set(chunk, at);
      at += chunk.length;
    }
    return all;
  } catch {
    return undefined;
  }
}
