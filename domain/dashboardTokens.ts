import { randomBytes } from "node:crypto";
import { sha256Hex } from "./credentials.ts";

/** A random bearer token (session cookie, invite link, CSRF token): 32 bytes, base64url. */
export const newDashboardToken = (): string => randomBytes(32).toString("base64url");

/** What is stored of a bearer token: its SHA-256, so a database read gives no usable cookie or link. */
export const dashboardTokenHash = (token: string): string => sha256Hex(token);
