import { createInvitation, EMAIL_PATTERN } from "../../api/dashboard/invitations.ts";
import { dashboardRoles } from "../../domain/dashboardRole.ts";
import type { CliContext } from "./context.ts";
import { required, UsageError, type Flags } from "./flags.ts";
import { merchantOf, oneOf } from "./lookups.ts";

/** The operator's commands on dashboard users (`user …`), each returning the text to print. */
export const userCommands: Record<string, (ctx: CliContext, flags: Flags) => Promise<string>> = {
  /** A one-time link that lets the person set a password: how a merchant's first owner arrives. */
  async "user invite"({ db, config }, flags) {
    const merchant = await merchantOf(db, flags);
    const email = required(flags, "email").toLowerCase();
    if (!EMAIL_PATTERN.test(email)) throw new UsageError("--email must be an e-mail address");
    const role = oneOf(flags, "role", dashboardRoles);
    const invitation = await createInvitation({ db, config }, merchant.id, email, role);
    if (!invitation) throw new UsageError(`--email: ${email} already belongs to another merchant's team`);
    return [
      `Invitation for ${email} (${role}) to ${merchant.name}, valid until ${invitation.expiresAt.toISOString()}:`,
      invitation.link,
      "The link works once and is shown only now.",
    ].join("\n");
  },
};
