/**
 * Compiles a glob into an anchored regular expression.
 *
 * In text mode `*` is any run of characters. In path mode `*` stays within one folder, `**`
 * crosses folders, a trailing slash-`**` also matches the folder itself, and a `**` segment
 * followed by a slash also matches no folder at all. `?` is one character (not `/` in path
 * mode). Everything else is literal.
 *
 * @param pattern The glob.
 * @param mode `"text"` or `"path"`.
 * @returns The regular expression.
 */
export function globToRegExp(pattern: string, mode: "text" | "path"): RegExp {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (mode === "path" && pattern.startsWith("/**", i) && i + 3 === pattern.length) {
      source += "(?:/.*)?";
      break;
    }
    if (mode === "path" && pattern.startsWith("**", i)) {
      if (pattern[i + 2] === "/" && (i === 0 || pattern[i - 1] === "/")) {
        source += "(?:.*/)?";
        i += 2;
      } else {
        source += ".*";
        i += 1;
      }
    } else if (char === "*") source += mode === "path" ? "[^/]*" : "[\\s\\S]*";
    else if (char === "?") source += mode === "path" ? "[^/]" : "[\\s\\S]";
    else source += char.replace(/[.+^${}()|[\]\\\/-]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}
