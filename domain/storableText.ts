/**
 * Text from outside (a webhook receiver's reply, a provider's message) as Postgres can
 * store it: a `text` column refuses the NUL character, which a reply in UTF-16 or a binary
 * body carries. Each NUL becomes U+FFFD (the replacement character), as a lone surrogate does.
 */
export function storableText(text: string): string;
export function storableText(text: string | null): string | null;
export function storableText(text: string | null): string | null {
  return text === null ? null : text.replaceAll("\u0000", "\uFFFD").toWellFormed();
}
