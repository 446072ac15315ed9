import { Hono } from "hono";

// Ponder requires an API entry; the product API is Elysia (api/). This answers
// Ponder's own /health, /ready and /status, which it serves itself.
const app = new Hono();
export default app;
