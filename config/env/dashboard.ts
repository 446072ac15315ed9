import { z } from "zod";
import { envSection } from "./section.ts";

export const dashboardEnv = envSection("Merchant dashboard", "The dashboard at `/dashboard`: how long a session lasts, how long an invitation link stays valid, and the sign-in lockout.", {
  DASHBOARD_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(1440).default(30).describe("Minutes: a dashboard session unused this long is signed out (a page refreshing itself does not count as use). Read by: api."),
  DASHBOARD_SESSION_MAX_HOURS: z.coerce.number().int().min(1).max(720).default(12).describe("Hours: a dashboard session ends this long after sign-in, however active. Read by: api."),
  DASHBOARD_INVITE_HOURS: z.coerce.number().int().min(1).max(720).default(72).describe("Hours an invitation link (`npm run cli -- user invite`, or an owner's on the Team page) stays valid. Read by: api, cli."),
  DASHBOARD_SIGNIN_ATTEMPTS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(5)
    .describe("Failed sign-ins (and password re-entries) per e-mail, and 4× this per client address, before a lockout. Read by: api."),
  DASHBOARD_SIGNIN_LOCKOUT_MINUTES: z.coerce.number().int().min(1).max(1440).default(15).describe("Minutes a sign-in lockout lasts, and the window failures are counted in. Read by: api."),
});
