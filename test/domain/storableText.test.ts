import { expect, test } from "bun:test";
import { storableText } from "../../domain/storableText.ts";

test("NUL characters and lone surrogates become U+FFFD; everything else is kept as it is", () => {
  expect(storableText(null)).toBeNull();
  expect(storableText("")).toBe("");
  expect(storableText("ok 200 — ✓ 😀")).toBe("ok 200 — ✓ 😀");
  expect(storableText("O\u0000K\u0000")).toBe("O\uFFFDK\uFFFD");
  expect(storableText("\u0000\u0000")).toBe("\uFFFD\uFFFD");
  expect(storableText("cut \ud83d")).toBe("cut \uFFFD");
  expect(storableText("\ude00 tail")).toBe("\uFFFD tail");
});
