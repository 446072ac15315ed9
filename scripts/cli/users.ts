import { inviteUser } from "../../db/dashboardUsers.ts";
import { dashboardRoles } from "../../domain/dashboardRole.ts";
import { dashboardTokenHash, newDashboardToken } from "../../domain/dashboardTokens.ts";
import type { CliContext } from "./context.ts";
import { required, UsageError, type Flags } from "./flags.ts";
import { merchantOf, oneOf } from "./lookups.ts";

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

/** The operator's commands on dashboard users (`user …`), each returning the text to print. */
export const userCommands: Record<string, (ctx: CliContext, flags: Flags) => Promise<string>> = {
  /** A one-time link that lets the person set a password: how a merchant's first owner arrives. */
  async "user invite"({ db, config }, flags) {
    const merchant = await merchantOf(db, flags);
    const email = required(flags, "email").toLowerCase();
    if (!EMAIL.test(email)) throw new UsageError("--email must be an e-mail address");
    const role = oneOf(flags, "role", dashboardRoles);
    const token = newDashboardToken();
    const expiresAt = new Date(Date.now() + config.dashboard.inviteMs);
    const user = await inviteUser(db, { merchantId: merchant.id, email, role, tokenHash: dashboardTokenHash(token), expiresAt });
    if (!user) throw new UsageError(`--email: ${email} already belongs to another merchant's team`);
    const base = config.http.publicBaseUrl.replace(/\/+$/, "");
    return [
      `Invitation for ${email} (${role}) to ${merchant.name}, valid until ${expiresAt.toISOString()}:`,
      `${base}/dashboard/invite/${token}`,
      "The link works once and is shown only now.",
    ].join("\n");
  },
};
