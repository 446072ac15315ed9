import type { Mode } from "../../config/index.ts";
import { ForbiddenError } from "../../domain/errors.ts";

/** Sandbox endpoints act on test data only: a live key is refused (403), never served test data. */
export function requireTestMode(auth: { mode: Mode }): void {
  if (auth.mode !== "test") {
    throw new ForbiddenError("Sandbox endpoints need a test key (pk_test_… or sk_test_…); live keys cannot create or simulate test payments.");
  }
}
