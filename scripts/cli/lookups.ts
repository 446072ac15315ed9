import type { Db } from "../../db/client.ts";
import { findMerchant } from "../../db/merchants.ts";
import { uuidPattern } from "../../domain/uuid.ts";
import { required, UsageError, type Flags } from "./flags.ts";

/** A flag that must be one of `values`. */
export const oneOf = <T extends string>(flags: Flags, name: string, values: readonly T[]): T => {
  const value = required(flags, name);
  if (!values.includes(value as T)) throw new UsageError(`--${name} must be one of: ${values.join(", ")}`);
  return value as T;
};

/** The merchant `--merchant` names (its id). */
export async function merchantOf(db: Db, flags: Flags) {
  const id = required(flags, "merchant");
  if (!uuidPattern.test(id)) throw new UsageError("--merchant must be a merchant id (uuid)");
  const merchant = await findMerchant(db, id);
  if (!merchant) throw new UsageError(`no merchant with id ${id}`);
  return merchant;
}
