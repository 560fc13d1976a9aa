/** The help text of each command, and of the program (`""`). */
export const HELP_TEXT: Readonly<Record<string, string>> = Object.freeze({
  "": `toolroute: a permission-aware tool router for LLM agents, served over MCP

Usage: toolroute <command> [options]

Commands:
  serve   Serve the configured tool set as an MCP server (stdio or HTTP)
  tools   Print the exposed tools
  call    Call one exposed tool and print its result
  flags   Print the exact deno run permission flags the config needs
  lock    Write (or --check) toolroute.lock: the pinned definitions of every remote tool
  init    Write a starter toolroute.json and its schema in this folder
  grants  List (ls) or revoke the lasting approvals serve --store keeps

Run "toolroute <command> --help" for a command's options.
Exit codes: 0 success, 1 the tool returned an error, 2 misuse (flags, config, permissions).`,
  serve: `Usage: toolroute serve [--config FILE] [--workspace DIR] [--stdio | --http [HOST:PORT]]

Serves exactly the tool set the config exposes as an MCP server: tools/list returns it and
tools/call runs only those names. Logs one line per call to stderr (never to stdout).

Options:
  --config FILE      The config (JSON with comments). Default: toolroute.json if it exists
  --workspace DIR    The workspace, overriding the config's
  --stdio            Serve over stdin/stdout (the default)
  --http [HOST:PORT] Serve Streamable HTTP at http://HOST:PORT/mcp. Default 127.0.0.1:8787.
                     Host and Origin are checked (DNS-rebinding protection) and a bearer
                     token is always required: each user's (config "users"), or without
                     users TOOLROUTE_TOKEN, or one generated and printed once to stderr
  --token-file FILE  With --http and no users: also write the token to FILE (mode 0600)
  --user ID          In stdio mode: serve the tool set of this configured user
  --shared-workspace With several users and no {user} in the workspace: let them share it
                     (as "sharedWorkspace": true); serve refuses several users without either
  --defer            List only search_tools (and expose.defer.keep): each client's searches
                     list the tools they find for that client, with tools/list_changed
  --audit FILE       Append one JSON line per decision to FILE (allow, deny, ask, approve,
                     reject, unknown tool, invalid arguments: user, tool, rule, argument
                     digest, outcome); when writes fall behind, calls wait, never unaudited
  --store FILE|URL   Keep tool pins in this SQLite file, or in Redis at a redis:// or
                     rediss:// URL, shared by every serve process using it (without
                     toolroute.lock): a definition pinned by one is withheld by all after
                     drift; also used approvals, grants ("toolroute grants"), policy limit
                     counts and OAuth tokens, signed with a secret kept in the store (or
                     TOOLROUTE_APPROVAL_SECRET); encrypted with TOOLROUTE_STORE_KEY (32 bytes,
                     base64) when it is set
  --allow-excess     Serve even when the process holds more permissions than needed
  -h, --help         Show this help

At start-up the process's Deno permissions are compared with the config's needs; serve refuses
(exit 2) and prints the exact flags when they are broader or missing.

Users: each user has their own sandbox session (/tmp, processes, limits) and background
processes. "workspace": "work/{user}" gives each their own folder, created on first use; one
workspace for several users needs "sharedWorkspace": true (or --shared-workspace).

Tool pinning: the first definition seen of each remote tool is pinned, and a later one that
differs is withheld (logged, and listed as not exposed). With a toolroute.lock beside the
config, exactly its definitions are served: a tool missing from it or different is withheld.`,
  tools: `Usage: toolroute tools [--config FILE] [--workspace DIR] [--user ID] [--json]

Prints the exposed tools as a table (name, source, shadowed-by); names that lost to a
higher-priority source are listed with the winner. Names that could not be exposed go to stderr.

Options:
  --config FILE    The config. Default: toolroute.json if it exists
  --workspace DIR  The workspace, overriding the config's
  --user ID        The tool set of this configured user
  --json           Print { tools, shadowed, missing } as JSON
  -h, --help       Show this help`,
  call:
    `Usage: toolroute call NAME ['{"json":"args"}'] [--config FILE] [--workspace DIR] [--user ID]
       [--timeout MS] [--store FILE|URL]

Calls one exposed tool and prints its result. Exit code 0 for a result, 1 for an error
result, 2 for misuse.

Options:
  --config FILE      The config. Default: toolroute.json if it exists
  --workspace DIR    The workspace, overriding the config's
  --user ID          Call as this configured user
  --timeout MS       The call's deadline in milliseconds
  --store FILE|URL   Use serve's store (SQLite file or redis:// URL): its grants, approvals
                     and policy limit counts apply to this call and count it
  -h, --help         Show this help`,
  flags: `Usage: toolroute flags [--config FILE] [--workspace DIR] [--http [HOST:PORT]] [--explain]

Prints the exact deno run permission flags serving the config needs, so that:
  deno run $(toolroute flags) jsr:@toolroute/toolroute/cli serve
runs with least privilege.

Options:
  --config FILE      The config. Default: toolroute.json if it exists
  --workspace DIR    The workspace, overriding the config's
  --http [HOST:PORT] Include the permission to listen on this address (default 127.0.0.1:8787)
                     and to read TOOLROUTE_TOKEN
  --audit FILE       Include the permission to append to this audit file
  --store FILE|URL   Include the permissions to use this SQLite store or Redis server
  --token-file FILE  Include the permission to write the token file of serve --http
  --explain          Also list the files serve runs or reads at its next start (config,
                     modules and their local imports, Deno config): the tools cannot write them
  -h, --help         Show this help`,
  lock: `Usage: toolroute lock [--config FILE] [--workspace DIR] [--check]

Connects to every remote MCP server of the config (global and users') and writes the definition
and hash of each tool to toolroute.lock beside the config, for review in version control;
"serve", "tools" and "call" then withhold any tool that is missing from it or differs.

Options:
  --config FILE    The config. Default: toolroute.json if it exists
  --workspace DIR  The workspace, overriding the config's
  --check          Compare instead of writing; exit 1 on any drift (changed, new or removed
                   tools, or a server that cannot be reached), for CI
  -h, --help       Show this help`,
  init: `Usage: toolroute init [--config FILE] [--workspace DIR]

Writes a starter toolroute.json (the file tools of the workspace, no MCP server yet) and
toolroute.schema.json beside it, which its "$schema" names, so editors complete and check the
file offline. Never overwrites a config.

Options:
  --config FILE    The file to write. Default: toolroute.json
  --workspace DIR  The workspace it serves. Default: the file's folder
  -h, --help       Show this help`,
  grants: `Usage: toolroute grants ls --store FILE|URL [--user ID] [--json]
       toolroute grants revoke ID --store FILE|URL

Grants are approvals a person answered with "session" (ends after 8 hours) or "always" (ends
when revoked): later calls of the same tool, for the same user, that the same policy rule asks
about run without asking. serve --store FILE keeps them in FILE, signed with a secret kept in
the same file (or TOOLROUTE_APPROVAL_SECRET when set, for serve and "grants" alike); without
--store, serve keeps grants in memory, for the life of the process.

Options:
  --store FILE  The store serve uses (a SQLite file or a redis:// URL)
  --user ID     Only this user's grants
  --json        Print the grants as JSON
  -h, --help    Show this help`,
});
