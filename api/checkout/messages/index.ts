import Negotiator from "negotiator";
import { en, type Messages } from "./en.ts";
import { es } from "./es.ts";
import { fr } from "./fr.ts";

export type { Messages };

/** The checkout page's languages, the first the default, each with its name in itself (for the switcher). */
export const LANGUAGES = [
  { code: "en", name: "English", messages: en },
  { code: "es", name: "Español", messages: es },
  { code: "fr", name: "Français", messages: fr },
] as const;

export type Language = (typeof LANGUAGES)[number];

/**
 * The page's language: `?lang=` when it names one we have, else the best match of the
 * browser's `Accept-Language` (q-values and regional variants: `fr-CA` is French),
 * else English.
 */
export function chooseLanguage(acceptLanguage: string | undefined, override: string | undefined): Language {
  const codes = LANGUAGES.map((l) => l.code);
  const wanted = override?.trim().toLowerCase();
  const chosen = (wanted && codes.find((c) => c === wanted)) || (acceptLanguage ? new Negotiator({ headers: { "accept-language": acceptLanguage } }).language([...codes]) : undefined);
  return LANGUAGES.find((l) => l.code === chosen) ?? LANGUAGES[0];
}
