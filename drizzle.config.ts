import { defineConfig } from "drizzle-kit";

// Only used to generate migrations (`npm run db:generate`); the service migrates itself.
export default defineConfig({
  dialect: "postgresql",
  // The service's tables, and each rail's own in its folder (`rails/<name>/tables.ts`, also its plugin's `tables`).
  schema: ["./db/schema/index.ts", "./rails/*/tables.ts"],
  out: "./db/migrations",
});
