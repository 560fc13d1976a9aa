/**
 * The project `bench/agent_trace.jsonl` was made against: a small JavaScript library ("ledger":
 * money, accounts, a journal, reports) of 31 modules in five folders, six `node:test` files, a
 * `run_tests.sh`, a README and a git repository. One test fails at the start (half-even rounding
 * is written as `Math.round`): the trace finds and fixes it. Deterministic: the same bytes on
 * every call, so the trace's edits and patches apply.
 *
 * @module
 */

/** Modules by folder; each gets generated helpers around what the tests import. */
const MODULES: Record<string, readonly string[]> = {
  money: ["currency", "amount", "format", "parse", "exchange"],
  ledger: ["account", "entry", "journal", "balance", "posting", "validate", "close_period"],
  io: ["csv_reader", "csv_writer", "json_export", "paths", "config"],
  report: ["summary", "monthly", "table", "chart_text", "aging"],
  util: ["dates", "ids", "strings", "errors", "assert", "sort", "group_by", "cache"],
};

const VERBS = ["load", "check", "merge", "split", "total", "pick", "build", "sum", "map", "scan"];

/** A generated helper: a dozen lines of plausible code. */
function helper(module: string, i: number): string {
  const verb = VERBS[(module.length + i) % VERBS.length];
  const name = `${verb}${module.replace(/(^|_)(\w)/g, (_, __, c: string) => c.toUpperCase())}${i}`;
  return [
    `/** ${verb[0].toUpperCase()}${verb.slice(1)}s the ${
      module.replace(/_/g, " ")
    } items (${i}). */`,
    `export function ${name}(items, options = {}) {`,
    `  const limit = options.limit ?? ${10 + i * 5};`,
    `  const out = [];`,
    `  for (const item of items) {`,
    `    if (out.length >= limit) break;`,
    `    if (item == null || item.skip === true) continue;`,
    `    out.push({ ...item, step: ${i}, source: "${module}" });`,
    `  }`,
    `  return out;`,
    `}`,
    ``,
  ].join("\n");
}

// What the tests import: real code, so the test runs mean something.
const CORE: Record<string, string> = {
  "src/money/rounding.js": `/** Rounding of money amounts, in minor units (cents). */

/**
 * Rounds a number of minor units to an integer, half to even (banker's rounding), as the
 * ledger's reports expect: 2.5 -> 2, 3.5 -> 4.
 */
export function roundHalfEven(value) {
  return Math.round(value);
}

/** Rounds a number of minor units up, away from zero. */
export function roundUp(value) {
  return value < 0 ? -Math.ceil(-value) : Math.ceil(value);
}

/** Splits an amount into n parts whose sum is the amount. */
export function allocate(amount, n) {
  const base = Math.floor(amount / n);
  const parts = Array.from({ length: n }, () => base);
  for (let i = 0; i < amount - base * n; i++) parts[i]++;
  return parts;
}
`,
  "src/util/dates.js": `/** Dates as the ledger stores them: ISO days, no time zone. */

const ISO_DAY = /^(\\d{4})-(\\d{2})-(\\d{2})$/;

/** Parses "YYYY-MM-DD" to { year, month, day }; throws on anything else. */
export function parseIsoDay(text) {
  const match = ISO_DAY.exec(text);
  if (match === null) throw new RangeError(\`Not an ISO day: \${text}\`);
  return { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) };
}

/** The "YYYY-MM" month of an ISO day. */
export function monthOf(text) {
  const { year, month } = parseIsoDay(text);
  return \`\${year}-\${String(month).padStart(2, "0")}\`;
}
`,
  "src/ledger/balance.js": `import { roundHalfEven } from "../money/rounding.js";

/** The balance of an account: the sum of its postings' amounts, in minor units. */
export function balanceOf(postings, account) {
  let total = 0;
  for (const posting of postings) {
    if (posting.account === account) total += posting.amount;
  }
  return roundHalfEven(total);
}

/** Balances of every account, by name. */
export function balances(postings) {
  const out = {};
  for (const posting of postings) out[posting.account] = (out[posting.account] ?? 0) + posting.amount;
  return out;
}
`,
  "src/report/summary.js": `import { balances } from "../ledger/balance.js";
import { monthOf } from "../util/dates.js";

/** One line per account: its name and balance, sorted by name. */
export function summaryLines(postings) {
  const all = balances(postings);
  return Object.keys(all).sort().map((name) => \`\${name}: \${all[name]}\`);
}

/** The months the postings cover, in order. */
export function months(postings) {
  return [...new Set(postings.map((posting) => monthOf(posting.date)))].sort();
}
`,
  "src/index.js": `export * from "./money/rounding.js";
export * from "./util/dates.js";
export * from "./ledger/balance.js";
export * from "./report/summary.js";
`,
};

const TESTS: Record<string, string> = {
  "tests/rounding.test.js": `import { test } from "node:test";
import assert from "node:assert/strict";
import { allocate, roundHalfEven, roundUp } from "../src/money/rounding.js";

test("half to even", () => {
  assert.equal(roundHalfEven(2.5), 2);
  assert.equal(roundHalfEven(3.5), 4);
  assert.equal(roundHalfEven(-2.5), -2);
  assert.equal(roundHalfEven(2.4), 2);
});

test("up, away from zero", () => {
  assert.equal(roundUp(2.1), 3);
  assert.equal(roundUp(-2.1), -3);
});

test("allocate keeps the sum", () => {
  assert.deepEqual(allocate(10, 3), [4, 3, 3]);
});
`,
  "tests/dates.test.js": `import { test } from "node:test";
import assert from "node:assert/strict";
import { monthOf, parseIsoDay } from "../src/util/dates.js";

test("parses an ISO day", () => {
  assert.deepEqual(parseIsoDay("2024-02-29"), { year: 2024, month: 2, day: 29 });
});

test("refuses other forms", () => {
  assert.throws(() => parseIsoDay("29/02/2024"), RangeError);
});

test("month of a day", () => {
  assert.equal(monthOf("2024-02-29"), "2024-02");
});
`,
  "tests/balance.test.js": `import { test } from "node:test";
import assert from "node:assert/strict";
import { balanceOf, balances } from "../src/ledger/balance.js";

const postings = [
  { account: "cash", amount: 1000, date: "2024-01-02" },
  { account: "rent", amount: -700, date: "2024-01-03" },
  { account: "cash", amount: -250, date: "2024-02-01" },
];

test("balance of one account", () => {
  assert.equal(balanceOf(postings, "cash"), 750);
});

test("balances of all", () => {
  assert.deepEqual(balances(postings), { cash: 750, rent: -700 });
});
`,
  "tests/summary.test.js": `import { test } from "node:test";
import assert from "node:assert/strict";
import { months, summaryLines } from "../src/report/summary.js";

const postings = [
  { account: "cash", amount: 1000, date: "2024-01-02" },
  { account: "bank", amount: 50, date: "2024-03-09" },
];

test("summary lines sorted", () => {
  assert.deepEqual(summaryLines(postings), ["bank: 50", "cash: 1000"]);
});

test("months covered", () => {
  assert.deepEqual(months(postings), ["2024-01", "2024-03"]);
});
`,
  "tests/index.test.js": `import { test } from "node:test";
import assert from "node:assert/strict";
import * as ledger from "../src/index.js";

test("exports the public functions", () => {
  for (const name of ["roundHalfEven", "parseIsoDay", "balanceOf", "summaryLines"]) {
    assert.equal(typeof ledger[name], "function", name);
  }
});
`,
  "tests/allocate.test.js": `import { test } from "node:test";
import assert from "node:assert/strict";
import { allocate } from "../src/money/rounding.js";

test("allocate of zero", () => {
  assert.deepEqual(allocate(0, 2), [0, 0]);
});
`,
};

const README = `# ledger

A small double-entry ledger: money in minor units, accounts, a journal, balances and reports.

## Layout

- \`src/money\`: currencies, amounts, rounding, formatting and parsing
- \`src/ledger\`: accounts, entries, the journal, balances, postings, validation
- \`src/io\`: CSV and JSON in and out, paths, configuration
- \`src/report\`: summaries, monthly reports, text tables and charts
- \`src/util\`: dates, ids, strings, errors, sorting, grouping, caching

## Tests

Run \`./run_tests.sh\` (Node's test runner over \`tests/\`), or one file with
\`node tests/<name>.test.js\`.

## Conventions

Amounts are integers of minor units; rounding is half to even everywhere.
Dates are ISO days (\`YYYY-MM-DD\`) without a time zone.
`;

/**
 * Writes the project into `dir` (which must exist and be empty, but for a `.git` this made
 * before) and makes it a git repository with one commit when `git` is there (a repository there
 * already is kept, its index brought back to that commit's tree).
 *
 * @param dir The workspace.
 */
export async function writeFixture(dir: string): Promise<void> {
  const files: Record<string, string> = {
    "package.json": JSON.stringify(
      { name: "ledger", version: "0.3.1", type: "module", scripts: { test: "node --test tests/" } },
      null,
      2,
    ) + "\n",
    "README.md": README,
    ".gitignore": "node_modules/\ndist/\n*.log\n",
    "run_tests.sh":
      '#!/usr/bin/env bash\ncd "$(dirname "$0")"\nnode --test tests/ 2>&1 | tail -n 12\n',
    ...CORE,
    ...TESTS,
  };
  for (const [folder, names] of Object.entries(MODULES)) {
    for (const name of names) {
      const count = 4 + (name.length % 6);
      const body = Array.from({ length: count }, (_, i) => helper(name, i)).join("\n");
      files[`src/${folder}/${name}.js`] =
        `/** ${folder}/${name}: part of the ledger. */\n\n${body}`;
    }
  }
  for (const [path, text] of Object.entries(files)) {
    const full = `${dir}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(full, text);
  }
  await Deno.chmod(`${dir}/run_tests.sh`, 0o755);
  const git = async (...args: string[]) => {
    const out = await new Deno.Command("git", {
      args: ["-c", "user.name=bench", "-c", "user.email=bench@example.org", ...args],
      cwd: dir,
      stdout: "null",
      stderr: "null",
    }).output().catch(() => undefined);
    return out?.success === true;
  };
  if (await git("init", "-q")) {
    await git("add", "-A");
    await git("commit", "-q", "-m", "ledger 0.3.1");
  }
}
