import { sql } from "drizzle-orm";

/**
 * A payment's amount (a USD stablecoin, 1:1) in 10^-18 dollars, in SQL, exactly as
 * `tokenUnitsToUsd` does it: scaled up to 18 decimals, or divided down past them (rounded
 * up, in whole numbers: `div` is exact where `/` would round at its own scale).
 */
export const usdUnitsOfAmount = sql.raw(
  `(case when token_decimals <= 18 then amount * (10::numeric ^ (18 - token_decimals))
         else div(amount + (10::numeric ^ (token_decimals - 18)) - 1, 10::numeric ^ (token_decimals - 18)) end)`,
);
