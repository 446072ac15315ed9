import { Elysia, t } from "elysia";
import { pingDatabase } from "../../db/client.ts";
import type { ApiDeps } from "../deps.ts";

export const API_VERSIONS = [{ version: "v1", status: "current", basePath: "/api/v1", releasedAt: "2026-11-22" }] as const;

const ping = async (what: () => Promise<unknown>, timeoutMs: number) => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([what(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("timeout")), timeoutMs)))]);
    return "ok" as const;
  } catch {
    return "unavailable" as const;
  } finally {
    clearTimeout(timer);
  }
};

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Unversioned routes: health and versions (knowable without a version), and network logos. */
export const systemRoutes = ({ config, db, redis, startedAt }: ApiDeps) =>
  new Elysia({ prefix: "/api", tags: ["System"] })
    .get(
      "/health",
      async ({ set }) => {
        const [database, queue] = await Promise.all([
          ping(() => pingDatabase(db), 2_000),
          ping(() => redis.ping(), 2_000),
        ]);
        const ok = database === "ok" && queue === "ok";
        if (!ok) set.status = 503;
        return {
          success: ok,
          status: ok ? "ok" : "degraded",
          checks: { database, redis: queue },
          uptimeSeconds: Math.floor((Date.now() - startedAt.getTime()) / 1000),
          timestamp: new Date().toISOString(),
        };
      },
      { detail: { summary: "Whether the service is up (database and queue reachable)" } },
    )
    .get("/versions", () => ({ success: true, current: "v1", versions: API_VERSIONS }), {
      detail: { summary: "Supported API versions" },
    })
    .get(
      "/static/networks/:file",
      ({ params, set }) => {
        const shortName = params.file.replace(/\.svg$/, "");
        const network = config.networks.find((n) => n.shortName === shortName);
        if (!network || !params.file.endsWith(".svg")) {
          set.status = 404;
          return { success: false, error: "not_found", message: `No logo for ${params.file}.` };
        }
        const initials = escapeXml(network.name.replace(/[^A-Za-z0-9 ]/g, "").split(" ").map((w) => w[0]).join("").slice(0, 2).toUpperCase());
        set.headers["Content-Type"] = "image/svg+xml";
        set.headers["Cache-Control"] = "public, max-age=86400";
        return `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><circle cx="32" cy="32" r="32" fill="${escapeXml(network.color)}"/><text x="32" y="40" font-family="sans-serif" font-size="22" font-weight="700" fill="#fff" text-anchor="middle">${initials}</text></svg>`;
      },
      { params: t.Object({ file: t.String({ maxLength: 64 }) }), detail: { hide: true } },
    );
