import { defineConfig } from "drizzle-kit";

// Only used to generate migrations (`npm run db:generate`); the service migrates itself.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema/index.ts",
  out: "./db/migrations",
});
