/**
 * The memory floor of the stack for `bench:memory`: the fewest lines that do what a create
 * does with the libraries the API must use — Elysia on Bun, drizzle over Bun's SQL client,
 * BullMQ on ioredis, viem and pino — and nothing of ours: `POST /create` inserts a row,
 * signs an EIP-712 message with viem, adds a delayed BullMQ job, logs a line and answers 201.
 * Bundled and run as its own process as the roles are (`bun <bundle> <port>`, with
 * DATABASE_URL, REDIS_URL and QUEUE_PREFIX set), so its RSS is what any API on this stack costs.
 */
import { Queue } from "bullmq";
import { SQL } from "bun";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import { Elysia, t } from "elysia";
import IORedis from "ioredis";
import pino from "pino";
import { privateKeyToAccount } from "viem/accounts";

const client = new SQL({ url: process.env.DATABASE_URL!, max: 10 });
const db = drizzle({ client });
await db.execute(sql`create table if not exists floor_payments (id uuid primary key default gen_random_uuid(), amount numeric(78, 0) not null, order_id text not null, signature text not null)`);
const queue = new Queue("floor-expiry", { connection: new IORedis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1 }), prefix: process.env.QUEUE_PREFIX });
const operator = privateKeyToAccount(`0x${"11".repeat(32)}`);
const logger = pino({ name: "floor" });

new Elysia()
  .post(
    "/create",
    async ({ body, set }) => {
      const amount = BigInt(Math.round(Number(body.amount) * 1e6));
      const signature = await operator.signTypedData({
        domain: { name: "Floor", version: "1", chainId: 31337, verifyingContract: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0" },
        types: { Intent: [{ name: "amount", type: "uint256" }, { name: "orderId", type: "string" }] },
        primaryType: "Intent",
        message: { amount, orderId: body.orderId },
      });
      const [row] = (await db.execute(sql`insert into floor_payments (amount, order_id, signature) values (${amount.toString()}, ${body.orderId}, ${signature}) returning id`)) as unknown as Array<{ id: string }>;
      await queue.add("expire", { id: row!.id }, { delay: 900_000, removeOnComplete: true });
      logger.info({ paymentId: row!.id }, "created");
      set.status = 201;
      return { success: true, payment: { id: row!.id, amount: body.amount, signature } };
    },
    { body: t.Object({ amount: t.String(), orderId: t.String() }) },
  )
  .listen({ hostname: "127.0.0.1", port: Number(process.argv[2]) });
