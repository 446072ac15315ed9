import { z } from "zod";
import { envSection } from "./section.ts";
import { evmAddress, evmPrivateKey } from "./formats.ts";

export const keysEnv = envSection(
  "Keys, fees and money out",
  "Each key that moves money is read by one role only; every other role builds its configuration without it (`config/roles.ts`). Keys are never logged.",
  {
    OPERATOR_PRIVATE_KEY: evmPrivateKey
      .optional()
      .describe("The EVM operator's key (0x and 64 hex digits): the ForwarderFactory's `operator`, which alone sweeps and refunds deposit addresses and pays their gas. Unset: no EVM sweeps or refunds. Read by: worker, cli."),
    OPERATOR_ADDRESS: evmAddress
      .optional()
      .describe("The EVM operator's address, for the roles that do not hold its key (deposit availability, the health's gas balance, Relay's default refund address). Where the key is set too, they must agree. Unset: derived from OPERATOR_PRIVATE_KEY, or no deposit addresses. Read by: api, worker."),
    INTENT_SIGNER_PRIVATE_KEY: evmPrivateKey
      .optional()
      .describe("Signs EIP-712 payment intents: the PaymentSettlement contract's `operator`. It moves no money (an intent only lets a customer pay a merchant what was asked). Unset: no contract payments. Read by: api."),
    SECRETS_KEY: z
      .string()
      .min(1)
      .optional()
      .describe("Encrypts the webhook signing secrets stored in the database: 32 bytes as base64 or 64 hex digits (`openssl rand -base64 32`). Required in production; elsewhere a public development key is used. Read by: api, worker, cli."),
    SIGNING_THREADS: z.coerce.number().int().min(0).max(16).default(1).describe("Threads that sign payment intents beside the API's request handling; 0: on the request's own thread. Read by: api."),
    FEE_BPS: z.coerce.number().int().min(0).max(10_000).default(0).describe("Service fee in basis points of each payment (x402 payments too), paid atomically to FEE_RECIPIENT by the settlement contract. Read by: api."),
    FEE_RECIPIENT: evmAddress.optional().describe("EVM address the service fee is paid to; required when FEE_BPS is above 0. Read by: api."),
    TRANSFER_REPLACE_AFTER: z.coerce
      .number()
      .min(1)
      .max(24 * 3600)
      .default(180)
      .describe("Seconds: a sweep or refund transaction not mined after this long is re-sent with higher fees (same nonce); three rounds of it mark a transfer out as stuck in health and metrics. Read by: worker, api."),
    REFUND_MIN_AMOUNT: z
      .string()
      .trim()
      .regex(/^\d{1,12}(\.\d{1,6})?$/, "a decimal amount of the token, e.g. 0.50 (at most 6 decimals)")
      .default("0.50")
      .describe("The least a refund sends, in whole token units (USDC, USDT: about a dollar). Less is refused: anyone holding a payment id may ask, and each refund costs the operator a transaction. Read by: api, worker."),
  },
);
