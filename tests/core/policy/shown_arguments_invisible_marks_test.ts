// Attack on finding 10's containment (issue 25, "a person approves what runs"): the approval text
// escaped controls, bidi, zero-width and unusual spaces, but not the invisible combining marks
// (Unicode's default-ignorable code points outside those classes: the combining grapheme joiner
// U+034F, variation selectors U+FE00–FE0F and U+E0100–E01EF, Mongolian and Khmer ones). A model
// writes `deploy\u034F.sh` and asks to run `./deploy\u034F.sh --prod`: the person reads
// `./deploy.sh --prod`, the project's known script, and approves the model's file.

import { assertEquals, assertNotEquals, assertStringIncludes } from "@std/assert";
import { EVERYTHING, policyRouter } from "./_policy_fixture.ts";

const MARKS = ["\u034F", "\uFE0F", "\uFE00", "\u180B", "\u17B4", "\u{E0100}"];

Deno.test("an approval shows an invisible combining mark in a command as an escape, never as the known command it looks like", async () => {
  const router = policyRouter({ policy: { ask: ["bash"] } });
  const toolSet = await router.expose(EVERYTHING);
  const known = await toolSet.call("bash", { command: "./deploy.sh --prod" });
  for (const mark of MARKS) {
    const command = `./deploy${mark}.sh --prod`;
    const { approval } = await toolSet.call("bash", { command });
    // The attack reached the approval: it holds the model's exact command.
    assertEquals(approval!.arguments.command, command);
    // Contained: the person sees a difference, written as an escape.
    assertNotEquals(approval!.shown, known.approval!.shown, JSON.stringify(mark));
    assertStringIncludes(approval!.shown, "\\u", JSON.stringify(mark));
  }
});
