/**
 * Markup for the dashboard's server-rendered pages: a tagged template that escapes every
 * interpolated value unless it is already `Html` (built by this tag or `raw`). Escaping is
 * the default, so a payment's orderId or metadata can never become markup.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = Html | string | number | bigint | boolean | null | undefined | readonly Part[];

const render = (part: Part): string => {
  if (part === null || part === undefined || part === false || part === true) return "";
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join("");
  return Bun.escapeHTML(String(part));
};

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** Markup trusted as is (the service's own constants only). */
export const raw = (value: string): Html => new Html(value);
