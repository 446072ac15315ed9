import { Elysia } from "elysia";
import { findMerchant, setWalletChangeDelay } from "../../../db/merchants.ts";
import { cancelScheduledWallet, scheduledWallets, scheduleSettlementWallet, setSettlementWallet, settlementWalletsByNetwork } from "../../../db/settlementWallets.ts";
import { applyDueWalletChanges } from "../../../payouts/index.ts";
import type { ApiDeps } from "../../deps.ts";
import { checkSettlementWallet } from "../../services/checkSettlementWallet.ts";
import { changeAnnounced } from "../announceChange.ts";
import { dashboardGuard, type DashboardContext } from "../guard.ts";
import { walletsPage, WALLET_DELAYS } from "../pages/walletsPage.ts";
import { credentialsMatch } from "../passwords.ts";
import { refusalPage } from "../refusals.ts";
import { htmlPage, seeOther } from "../respond.ts";
import type { SignInThrottle } from "../signInThrottle.ts";

const field = (body: unknown, name: string): string => {
  const value = body && typeof body === "object" ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === "string" ? value : "";
};

const NOTICES: Record<string, string> = {
  changed: "Settlement wallet changed.",
  scheduled: "The change is recorded: it takes effect at the time shown, unless an owner cancels it.",
  cancelled: "The waiting change was cancelled: the wallet stays as it is.",
  delay: "The delay for live wallet changes is saved.",
};

/**
 * Settlement wallets, per network of the mode shown: where payments settle. Changing one is
 * for owners only, asks for the password again (and the TOTP code when on), runs the operator
 * CLI's checks (`checkSettlementWallet`), and is audited and announced (`account.changed`). In
 * live mode a change of a wallet already set waits the merchant's chosen delay (cancellable
 * meanwhile); the recheck makes it final once due, and reads use it from its time on.
 */
export const dashboardWalletRoutes = (deps: ApiDeps, assets: string, throttle: SignInThrottle) => {
  const { config, db } = deps;
  const networksOf = (dash: DashboardContext) => config.networks.filter((n) => n.isTestnet === (dash.mode === "test"));
  const delayOf = async (dash: DashboardContext) => (await findMerchant(db, dash.merchantId))?.walletChangeDelayHours ?? 0;

  async function render(dash: DashboardContext, options: { status?: number; problem?: string; notice?: string; network?: string; address?: string } = {}) {
    const [wallets, scheduled, delayHours] = await Promise.all([settlementWalletsByNetwork(db, dash.merchantId), scheduledWallets(db, dash.merchantId), delayOf(dash)]);
    const body = walletsPage(dash.page, { networks: networksOf(dash), wallets, scheduled, delayHours, owner: dash.user.role === "owner", ...options });
    return htmlPage(body, { status: options.status ?? 200 });
  }

  /** Null when the password (and TOTP code) are right; else the page saying what was wrong. */
  async function reauthenticate(dash: DashboardContext, body: unknown, again: (status: number, problem: string) => Promise<Response>) {
    const lockedFor = await throttle.lockedFor(dash.user.email, dash.ip);
    if (lockedFor > 0) return again(429, `Too many wrong passwords: try again in ${Math.ceil(lockedFor / 60)} minute(s).`);
    if (await credentialsMatch(db, dash.user, field(body, "password"), field(body, "totp"))) return null;
    await throttle.failed(dash.user.email, dash.ip);
    return again(403, "password: that is not your password (or the authentication code is wrong). Nothing changed.");
  }

  return new Elysia()
    .use(dashboardGuard(deps, assets))
    .get("/wallets", ({ dash, query }) => render(dash, { notice: NOTICES[String(query.done)] }), { dashboard: "read" })
    .post(
      "/wallets",
      async ({ dash, body }) => {
        const shortName = field(body, "network");
        const given = field(body, "address").trim().slice(0, 200);
        const again = (status: number, problem: string) => render(dash, { status, problem, network: shortName, address: given });
        const network = networksOf(dash).find((n) => n.shortName === shortName);
        if (!network) return again(400, `network: one of ${networksOf(dash).map((n) => n.shortName).join(", ")}`);
        const refused = await reauthenticate(dash, body, again);
        if (refused) return refused;
        const checked = await checkSettlementWallet(network, given).catch(() => null);
        if (!checked) return again(503, `${network.name} could not be read to check the address: try again shortly. Nothing changed.`);
        if ("refused" in checked) return again(400, `address: ${checked.refused}`);
        // A change already due is made final first (audited, announced), so the one made now starts from it.
        await applyDueWalletChanges(deps);
        const before = (await settlementWalletsByNetwork(db, dash.merchantId)).get(network.id) ?? null;
        const hours = dash.mode === "live" && before !== null ? await delayOf(dash) : 0;
        if (hours > 0) {
          await changeAnnounced(
            db,
            dash,
            (tx) => scheduleSettlementWallet(tx, dash.merchantId, network.id, checked.address, hours, dash.user.id),
            (effectiveAt) => ({ action: "settlement_wallet.change_scheduled", details: { network: network.shortName, from: before, to: checked.address, effectiveAt: effectiveAt.toISOString() }, modes: [dash.mode] }),
          );
          return seeOther("/dashboard/wallets?done=scheduled");
        }
        await changeAnnounced(
          db,
          dash,
          (tx) => setSettlementWallet(tx, dash.merchantId, network.id, checked.address).then(() => true),
          () => ({ action: "settlement_wallet.changed", details: { network: network.shortName, from: before, to: checked.address }, modes: [dash.mode] }),
        );
        return seeOther("/dashboard/wallets?done=changed");
      },
      { dashboard: "owner" },
    )
    .post(
      "/wallets/:network/cancel",
      async ({ dash, params }) => {
        // Cancelling keeps money where it goes now: an owner's session is enough, no password.
        const network = networksOf(dash).find((n) => n.shortName === params.network);
        if (!network) return refusalPage(assets, 404, `No ${dash.mode} network ${params.network}.`);
        const cancelled = await changeAnnounced(
          db,
          dash,
          (tx) => cancelScheduledWallet(tx, dash.merchantId, network.id),
          (address) => ({ action: "settlement_wallet.change_cancelled", details: { network: network.shortName, to: address }, modes: [dash.mode] }),
        );
        if (cancelled === undefined) return render(dash, { status: 409, problem: `No change of the ${network.name} wallet is waiting (it may have taken effect already).` });
        return seeOther("/dashboard/wallets?done=cancelled");
      },
      { dashboard: "owner" },
    )
    .post(
      "/wallets/delay",
      async ({ dash, body }) => {
        const hours = Number(field(body, "hours"));
        const again = (status: number, problem: string) => render(dash, { status, problem });
        if (!(WALLET_DELAYS as readonly number[]).includes(hours) || field(body, "hours").trim() === "") return again(400, `hours: one of ${WALLET_DELAYS.join(", ")}.`);
        const refused = await reauthenticate(dash, body, again);
        if (refused) return refused;
        const from = await delayOf(dash);
        // Announced like a wallet change: shortening the delay is how a wallet change would be hurried.
        await changeAnnounced(
          db,
          dash,
          (tx) => setWalletChangeDelay(tx, dash.merchantId, hours).then(() => true),
          () => ({ action: "settlement_wallet.delay_changed", details: { fromHours: from, toHours: hours }, modes: ["live"] }),
        );
        return seeOther("/dashboard/wallets?done=delay");
      },
      { dashboard: "owner" },
    );
};
