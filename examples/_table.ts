/** Prints rows as a plain-text table with a header line. */
export function table(print: (line: string) => void, header: string[], rows: string[][]): void {
  const clip = (text: string) => text.replace(/\s+/g, " ").slice(0, 110);
  const all = [header, ...rows.map((row) => row.map(clip))];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? "").length)));
  const line = (row: string[]) =>
    row.map((cell, i) => (cell ?? "").padEnd(widths[i])).join(" | ").trimEnd();
  print(line(all[0]));
  print(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const row of all.slice(1)) print(line(row));
}
