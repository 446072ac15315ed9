import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@stablepay/devchain/freePort";
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from "../../db/embeddedPostgres.ts";

const dataDir = mkdtempSync(join(tmpdir(), "stablepay-embedded-"));
let first: EmbeddedPostgresHandle | undefined;
afterAll(async () => {
  await first?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

// BUG: a second start on a data directory a server still holds (a sandbox left running, or one
// a closed terminal orphaned) failed with `error: undefined` and nothing else.
test("a second server on the same data directory fails naming the directory and the likely cause", async () => {
  first = await startEmbeddedPostgres({ dataDir, port: await freePort() });
  const second = await startEmbeddedPostgres({ dataDir, port: await freePort() }).then(
    async (h) => (await h.stop(), "started"),
    (error: Error) => error.message,
  );
  expect(second).toContain(dataDir);
  expect(second).toContain("another `npm start`");
}, 120_000);
