// Outside attack on the frames a search holds (s36, attack3, against e225f6d): frames sent with
// `hold` wait in the supervisor's 64 KiB buffer for the next frame sent without it. Held: a run of
// held frames whose bodies look like frame headers, a frame that fills the buffer's estimate to
// exactly 64 KiB and one a byte past it, a held frame larger than the buffer after held ones, and
// another request's answer between them all reach the host whole, once each, in the order sent.
import { assertEquals } from "@std/assert";
import { FrameReader } from "../../../../src/deno/sandbox/protocol.ts";

const CONTEXT = new URL(
  "../../../../src/deno/sandbox/supervisor/supervisor_context.ts",
  import.meta.url,
).href;

Deno.test("held frames reach the host whole, once each and in order, at and past the buffer's edge", async () => {
  // Each step: [id, hold, body length, fill]; a body length of -1 fills the buffer's estimate to
  // exactly 64 KiB (`most` in `send`), -2 to one byte past it.
  const script = `
    import { supervisorContext } from ${JSON.stringify(CONTEXT)};
    const { send } = supervisorContext();
    const sent = [];
    let held = 0;
    const fake = new Uint8Array(8 + 11);
    new DataView(fake.buffer).setUint32(0, 11);
    fake.set(new TextEncoder().encode('{"id":9,"ok":{}}'.slice(0, 11)), 8);
    const step = async (id, hold, length) => {
      const header = { id, stream: 1 };
      const most = 8 + JSON.stringify(header).length * 3;
      if (length === -1) length = 65536 - held - most;
      if (length === -2) length = 65536 - held - most + 1;
      const body = new Uint8Array(length).fill(65 + (sent.length % 26));
      body.set(fake.subarray(0, Math.min(fake.length, length)));
      await send(header, body, hold);
      held = hold && held + most + length <= 65536 ? held + 8 + JSON.stringify(header).length + length : 0;
      sent.push([id, length, body[length - 1] ?? null]);
    };
    for (let i = 0; i < 5; i++) await step(1, true, 100 + i);
    await step(2, false, 0);
    await step(1, true, 3000);
    await step(1, true, -1);
    await step(3, true, 10);
    await step(1, true, 50);
    await step(3, true, 200000);
    await step(1, true, -2);
    await step(1, true, 5);
    await send({ id: 1, ok: { stopped: null } });
    sent.push([1, "end"]);
    console.error(JSON.stringify(sent));
  `;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", "--quiet", script],
    stdin: "null",
  }).output();
  const expected = JSON.parse(new TextDecoder().decode(output.stderr).trim().split("\n").at(-1)!);
  const frames = new FrameReader().push(output.stdout);
  const got = frames.map((frame) =>
    "ok" in frame.header
      ? [frame.header.id, "end"]
      : [frame.header.id, frame.body.length, frame.body.at(-1) ?? null]
  );
  // The attack reached the edge: the steps at and past 64 KiB ran, and a frame larger than it.
  assertEquals(expected.length, 14);
  assertEquals(got, expected);
});
