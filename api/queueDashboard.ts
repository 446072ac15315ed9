import { createRequire } from "node:module";
import { dirname } from "node:path";
import type { Queue } from "bullmq";
import type { Config } from "../config/index.ts";
import { fromProjectRoot } from "../config/projectRoot.ts";

export const DASHBOARD_PATH = "/admin/queues";

/**
 * bull-board's UI (its HTML and static files) on disk. Named here because bull-board finds it
 * with `eval("require.resolve(...)")`, which a bundled role (`npm run build`) has no `require`
 * for: the API crashed on start with the dashboard on. Resolved as @bull-board/api would,
 * from the project's directory, which the bundle shares with the sources.
 */
function bullBoardUiPath(): string {
  const fromApi = createRequire(createRequire(fromProjectRoot("package.json")).resolve("@bull-board/api"));
  return dirname(fromApi.resolve("@bull-board/ui/package.json"));
}

/**
 * The BullMQ dashboard (bull-board) over the given queues, mounted at `/admin/queues`:
 * read-only unless `QUEUE_DASHBOARD=read-write`. Null when it is off (no operator token,
 * `QUEUE_DASHBOARD=off`, or no queues). Built before the app because the adapter loads
 * its assets asynchronously; `operatorRoutes` puts it behind the operator token.
 * bull-board is imported only when the dashboard is on: its Elysia adapter is CommonJS and
 * loads a second copy of Elysia and TypeBox (~9 MB of the API's memory).
 */
export async function buildQueueDashboard(config: Config, queues: Queue[]) {
  const { token, queueDashboard } = config.operator;
  if (!token || queueDashboard === "off" || queues.length === 0) return null;
  const [{ createBullBoard }, { BullMQAdapter }, { ElysiaAdapter }] = await Promise.all([
    import("@bull-board/api"),
    import("@bull-board/api/bullMQAdapter"),
    import("@bull-board/elysia"),
  ]);
  const adapter = new ElysiaAdapter(DASHBOARD_PATH);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: queueDashboard === "read-only" })),
    serverAdapter: adapter,
    options: { uiBasePath: bullBoardUiPath(), uiConfig: { boardTitle: "stablepay queues" } },
  });
  return adapter.registerPlugin();
}

export type QueueDashboard = NonNullable<Awaited<ReturnType<typeof buildQueueDashboard>>>;
