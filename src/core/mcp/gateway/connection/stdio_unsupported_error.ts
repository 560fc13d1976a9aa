/**
 * Thrown when a `{ command }` (stdio) config reaches a gateway that cannot run it: no transport
 * factory gave a transport for it. Retrying cannot help, so the connection gives up for good.
 */
export class StdioUnsupportedError extends TypeError {
  /**
   * Creates the error.
   *
   * @param serverId The server whose config is a stdio one.
   */
  constructor(serverId: string) {
    super(
      `Cannot connect to MCP server "${serverId}": stdio servers ("command") need the ` +
        `"@toolroute/toolroute/deno" entry (createDenoGateway) or a "transportFactory"`,
    );
    this.name = "StdioUnsupportedError";
  }
}
