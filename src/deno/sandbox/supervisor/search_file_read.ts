/**
 * Reads a file of at most `max` bytes that the caller found to be a regular file, for the
 * supervisor's searches (a read that fills less than the buffer is its end: most files take one
 * read). `undefined` for a larger file, one that grows past its size while read, one whose first
 * bytes (a whole `buffer`) hold a NUL byte (binary, skipped anyway), or one that cannot be read.
 * With `lstatFirst`, anything but a regular file (a symbolic link included) is `undefined`
 * without being opened (for a `.gitignore`), and a NUL byte does not skip the file (the host
 * reads a `.gitignore` whole, whatever its bytes: skipped here, its rules were lost in the sandbox
 * only). A global of the supervisor (`supervisor_script.ts`): self-contained.
 *
 * @param options The most bytes, the buffer of the first read, whether to `lstat` first.
 * @returns The bytes (a view of `buffer` when they fit in it), or `undefined`.
 */
export function searchFileRead(
  path: string,
  options: { readonly max: number; readonly buffer: Uint8Array; readonly lstatFirst?: boolean },
): Uint8Array | undefined {
  const { max, buffer } = options;
  try {
    if (options.lstatFirst) {
      const info = Deno.lstatSync(path);
      if (!info.isFile || info.size > max) return undefined;
    }
    using file = Deno.openSync(path, { read: true });
    const first = file.readSync(buffer) ?? 0;
    if (first < buffer.length) return buffer.subarray(0, first);
    if (!options.lstatFirst && buffer.includes(0)) return undefined;
    const info = file.statSync();
    if (!info.isFile || info.size > max) return undefined;
    const all = new Uint8Array(Math.max(info.size, first) + 1);
    all.set(buffer);
    let length = first;
    for (;;) {
      if (length === all.length) return undefined; // grew past its size: skipped
      const read = file.readSync(all.subarray(length));
      if (read === null) break;
      length += read;
      if (length > max) return undefined;
    }
    return all.subarray(0, length);
  } catch {
    return undefined;
  }
}
