import { HostTree } from "./host_tree.ts";
import {
  MAX_SEARCH_BYTES,
  type OnFile,
  type ReadRequest,
  type SearchAccess,
} from "./search_access.ts";

/**
 * The searches' access to the host's file system (bash off or not sandboxed): the tree is read
 * folder by folder as the walk goes, files one by one with synchronous reads.
 *
 * Requires `allow-read` permission for the roots.
 *
 * @tags allow-read
 */
export function hostSearchAccess(): SearchAccess {
  return Object.freeze({
    list: (root: string) => Promise.resolve(new HostTree(root)),
    async read(root: string, request: ReadRequest, onFile: OnFile): Promise<void> {
      const buffer = new Uint8Array(64 * 1024);
      for (const path of request.files) {
        await request.budget.tick();
        const full = path === "" ? root : `${root}/${path}`;
        if (await onFile(path, readBounded(full, buffer)) === true) return;
      }
    },
  });
}

/**
 * Reads a file up to the size limit. A read that fills less than the buffer is taken as the end of
 * the (regular) file, which spares most files their second read; a file that goes on past its
 * first 64 KiB stops there when those hold a NUL byte (a binary file, which the caller skips), and
 * otherwise is read whole, at once into a buffer of its size (no NUL byte looked for: the caller
 * does, when it needs to).
 */
function readBounded(path: string, buffer: Uint8Array): Uint8Array | undefined {
  try {
    using file = Deno.openSync(path, { read: true });
    const first = file.readSync(buffer) ?? 0;
    // Most files fit the shared buffer (valid until the next file is read).
    if (first < buffer.length) return buffer.subarray(0, first);
    if (buffer.includes(0)) return buffer;
    const size = file.statSync().size;
    if (size > MAX_SEARCH_BYTES) return undefined;
    // One more byte than its size: a file that grew meanwhile is read up to the limit.
    let all = new Uint8Array(Math.max(size, first) + 1);
    all.set(buffer);
    let length = first;
    for (;;) {
      if (length === all.length) {
        const larger = new Uint8Array(Math.min(all.length * 2, MAX_SEARCH_BYTES + 1));
        larger.set(all);
        all = larger;
      }
      const read = file.readSync(all.subarray(length));
      if (read === null) break;
      length += read;
      if (length > MAX_SEARCH_BYTES) return undefined;
    }
    return all.subarray(0, length);
  } catch {
    return undefined;
  }
}
