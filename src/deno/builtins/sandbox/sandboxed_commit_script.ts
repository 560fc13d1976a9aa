/**
 * The fixed bash script that commits file changes inside the bubblewrap sandbox (see
 * `sandboxed_commit.ts`). Paths and settings come only as arguments (never interpolated into
 * the script), new contents on stdin, one after the other, each read with `head -c <bytes>`
 * (GNU head reads no more than it writes).
 *
 * Arguments: one group per file: `path kind identity mode bytes temp backup dirCount dirs…`,
 * where kind is `write`, `append` (the old content, then the new) or `delete`; identity is `-`
 * (no file expected), `any` (a file expected) or `dev:ino` (that file expected); mode is octal
 * permission bits or `-`; dirs are the missing parents to create, outermost first.
 *
 * Every content is staged in its temporary file first (creating parents); then each old file is
 * checked, kept as a backup (a hard link, or renamed away for a delete) and the temporary file
 * renamed into place. On failure it prints `fail <index> <step>` on stdout, restores every file
 * already changed, removes what it created and exits with 3; the failing command's message is the
 * last line on stderr.
 */
export const SANDBOXED_COMMIT_SCRIPT = `
export LC_ALL=C PATH=/usr/bin:/bin
set -C
mask=0022
while read -r key value; do [ "$key" = Umask: ] && mask=$value; done < /proc/self/status
n=0 t=() k=() id=() m=() s=() tmp=() bak=() D=() DI=() made=() staged=() backed=() fin=()
while [ "$#" -ge 8 ]; do
  t[n]=$1 k[n]=$2 id[n]=$3 m[n]=$4 s[n]=$5 tmp[n]=$6 bak[n]=$7 nd=$8
  shift 8
  for ((j = 0; j < nd; j++)); do D+=("$1"); DI+=("$n"); shift; done
  n=$((n + 1))
done
undo() {
  for ((i = n - 1; i >= 0; i--)); do
    [ -n "\${staged[i]}" ] && rm -f -- "\${tmp[i]}"
    if [ -n "\${backed[i]}" ]; then
      mv -f -T -- "\${bak[i]}" "\${t[i]}"
      rm -f -- "\${bak[i]}"
    elif [ -n "\${fin[i]}" ]; then
      rm -f -- "\${t[i]}"
    fi
  done
  for ((j = \${#made[@]} - 1; j >= 0; j--)); do rmdir -- "\${made[j]}"; done
}
fail() {
  printf 'fail %s %s\\n' "$1" "$2"
  undo 2>/dev/null
  exit 3
}
for ((i = 0; i < n; i++)); do
  for ((j = 0; j < \${#D[@]}; j++)); do
    [ "\${DI[j]}" = "$i" ] || continue
    [ -d "\${D[j]}" ] && continue
    mkdir -- "\${D[j]}" || fail "$i" mkdir
    made+=("\${D[j]}")
  done
  [ "\${k[i]}" = delete ] && continue
  # Created with the permission bits through the umask: no chmod unless execute bits are wanted.
  if [ "\${m[i]}" != - ]; then printf -v u '%o' $((0777 & ~0\${m[i]})) && umask "$u"; fi
  : > "\${tmp[i]}" || fail "$i" stage
  umask "$mask"
  staged[i]=1
  if [ "\${k[i]}" = append ]; then cat -- "\${t[i]}" >> "\${tmp[i]}" || fail "$i" read; fi
  head -c "\${s[i]}" >> "\${tmp[i]}" || fail "$i" stage
  if [ "\${m[i]}" != - ] && ((0\${m[i]} & 0111)); then
    chmod -- "\${m[i]}" "\${tmp[i]}" || fail "$i" stage
  fi
done
for ((i = 0; i < n; i++)); do
  if [ "\${id[i]}" != - ]; then
    if [ "\${id[i]}" != any ]; then
      [ "$(stat -c %d:%i -- "\${t[i]}" 2>/dev/null)" = "\${id[i]}" ] || fail "$i" changed
    fi
    # Nothing can fail after the last file: it needs no backup.
    if [ "\${k[i]}" = delete ] && ((i == n - 1)); then
      rm -- "\${t[i]}" || fail "$i" backup
    elif [ "\${k[i]}" = delete ]; then
      mv -f -T -- "\${t[i]}" "\${bak[i]}" || fail "$i" backup
      backed[i]=1
    elif ((i < n - 1)); then
      ln -T -- "\${t[i]}" "\${bak[i]}" || fail "$i" backup
      backed[i]=1
    fi
  fi
  if [ "\${k[i]}" != delete ]; then
    mv -f -T -- "\${tmp[i]}" "\${t[i]}" || fail "$i" publish
    staged[i]=
  fi
  fin[i]=1
done
gone=()
for ((i = 0; i < n; i++)); do
  [ -n "\${backed[i]}" ] || continue
  if [ "\${id[i]}" = any ] || [ "$(stat -c %d:%i -- "\${bak[i]}" 2>/dev/null)" = "\${id[i]}" ]; then
    gone+=("\${bak[i]}")
  fi
done
if [ "\${#gone[@]}" -gt 0 ]; then rm -f -- "\${gone[@]}"; fi
exit 0
`;
