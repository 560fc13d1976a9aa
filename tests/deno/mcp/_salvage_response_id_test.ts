import { assertEquals } from "@std/assert";
import { salvageResponseId } from "../../../src/deno/mcp/_salvage_response_id.ts";

Deno.test("salvageResponseId() finds the id of a broken response at its end or start", () => {
  assertEquals(salvageResponseId('{"result":{"content":[', '"x"}]},"jsonrpc":"2.0","id":12}'), 12);
  assertEquals(salvageResponseId('{"jsonrpc":"2.0","id":"a-1","result":{', "…broken"), "a-1");
  assertEquals(salvageResponseId('{"error":{"code":1', '"jsonrpc":"2.0","id":3}\r'), 3);
});

Deno.test("salvageResponseId() ignores requests and notifications: their ids are the server's", () => {
  assertEquals(
    salvageResponseId('{"method":"elicitation/create","params":{', '"id":0}'),
    undefined,
  );
  assertEquals(salvageResponseId("this is not json", "this is not json"), undefined);
  assertEquals(salvageResponseId('{"result":{', "no id here"), undefined);
});
