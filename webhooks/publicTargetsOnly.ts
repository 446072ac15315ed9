import type { Mode, WebhooksConfig } from "../config/index.ts";

/**
 * Whether webhooks of `mode` may go only to public addresses (the SSRF check, at
 * registration and before each attempt). Live ones always; test ones too unless the
 * deployment lets them reach a local receiver (`WEBHOOK_TEST_TARGETS=any`, the default
 * outside production): on a production server anyone holding a test key could otherwise
 * make it POST into the operator's network and read the first KB of the answer.
 */
export const publicTargetsOnly = (webhooks: Pick<WebhooksConfig, "testTargets">, mode: Mode): boolean => mode === "live" || webhooks.testTargets === "public";
