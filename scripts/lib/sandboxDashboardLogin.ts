import { randomBytes } from "node:crypto";
import { hashPassword } from "../../api/dashboard/passwords.ts";
import type { Db } from "../../db/client.ts";
import { setSandboxOwner } from "../../db/dashboardUsers.ts";

export const SANDBOX_OWNER_EMAIL = "owner@sandbox.local";

/**
 * The sandbox merchant's dashboard login: its owner gets a new random password on every
 * start (printed and written to dev-stack.json, never a fixed one that could outlive the sandbox).
 */
export async function sandboxDashboardLogin(db: Db, merchantId: string): Promise<{ email: string; password: string }> {
  const password = randomBytes(12).toString("base64url");
  await setSandboxOwner(db, merchantId, SANDBOX_OWNER_EMAIL, await hashPassword(password));
  return { email: SANDBOX_OWNER_EMAIL, password };
}
