import { Elysia } from "elysia";
import type { Mode } from "../../config/types.ts";
import { parseKeyPrefix, secretMatches } from "../../domain/credentials.ts";
import { UnauthorizedError } from "../../domain/errors.ts";
import type { CredentialLookup } from "../services/credentialCache.ts";

/** Who is calling, as established by the auth plugin. */
export type AuthContext = {
  merchantId: string;
  /** Mode of the data this request reads and writes. */
  mode: Mode;
  scheme: "public_key" | "api_key";
  credentialId: string;
};

/**
 * `public`: a public key, or an API key + secret (servers that send those everywhere
 * keep working). `account`: the account-wide reads; an API key + secret, which always
 * reads live data (rule 3); a public key alone still works with `Deprecation: true` (rule 4).
 * `secret`: server-only resources (webhook endpoints, the event feed): an API key +
 * secret only, in its own mode; a public key is refused (it may sit in a browser).
 */
export type AuthRequirement = "public" | "account" | "secret";

type Headers = Record<string, string | undefined>;

export type AuthOptions = {
  /**
   * Whether `account` routes still take a public key alone (spec rule 4, deprecated; on by
   * default). Off: they read only key + secret, and a public key sent beside them is ignored.
   */
  publicKeyAccountReads?: boolean;
};

async function authenticate(
  credentials: CredentialLookup,
  headers: Headers,
  requirement: AuthRequirement,
  set: { headers: Record<string, string | number> },
  options: AuthOptions,
): Promise<AuthContext> {
  const fail = () => new UnauthorizedError(requirement === "public" ? "any" : "account");
  const publicKey = headers["x-public-key"]?.trim();
  const publicKeyAccepted = requirement === "public" || (requirement === "account" && options.publicKeyAccountReads !== false);

  // Rule 2: a public key present wins over an API key + secret.
  if (publicKey && publicKeyAccepted) {
    const parsed = parseKeyPrefix(publicKey);
    if (!parsed || parsed.kind !== "public") throw fail();
    const credential = await credentials.find(publicKey);
    if (!credential || credential.kind !== "public") throw fail();
    if (requirement === "account") set.headers["Deprecation"] = "true";
    return { merchantId: credential.merchantId, mode: credential.mode, scheme: "public_key", credentialId: credential.id };
  }

  const apiKey = headers["x-api-key"]?.trim();
  const apiSecret = headers["x-api-secret"]?.trim();
  if (!apiKey || !apiSecret) throw fail();
  const parsed = parseKeyPrefix(apiKey);
  if (!parsed || parsed.kind !== "secret") throw fail();
  const credential = await credentials.find(apiKey);
  if (!credential || credential.kind !== "secret" || !credential.secretHash) throw fail();
  if (!secretMatches(apiSecret, credential.secretHash)) throw fail();
  return {
    merchantId: credential.merchantId,
    mode: requirement === "account" ? "live" : credential.mode,
    scheme: "api_key",
    credentialId: credential.id,
  };
}

// Who each request is, once established: shared by every instance of the plugin, so that
// the rate limits (`api/plugins/rateLimits.ts`) count the credential the request proved.
const established = new WeakMap<Request, AuthContext>();

/** The credential this request proved, once the auth plugin has checked it (undefined: none, or not yet). */
export const authOf = (request: Request): AuthContext | undefined => established.get(request);

/**
 * Routes opt in with `{ auth: "public" }` or `{ auth: "account" }` and receive `auth`.
 * Routes without the option need no credentials (spec rule 6).
 */
export const authPlugin = (credentials: CredentialLookup, options: AuthOptions = {}) => {
  const refused = new WeakMap<Request, unknown>();
  return new Elysia().macro({
    auth: (requirement: AuthRequirement) => ({
      // Checked before the body is parsed (a request with one) and in `transform`, which
      // Elysia runs before validating params and body: a request without valid credentials
      // is a 401 whatever else is wrong with it, a body that is not JSON included. (An error
      // thrown while parsing would be a 400: a refusal is kept for `transform` to throw, and
      // the body it will never use is not read.)
      async parse({ request, headers, set }) {
        try {
          established.set(request, await authenticate(credentials, headers, requirement, set, options));
        } catch (error) {
          refused.set(request, error);
          return {};
        }
        // Nothing returned: Elysia's own parser reads the body.
      },
      async transform({ request, headers, set }) {
        if (refused.has(request)) throw refused.get(request);
        if (!established.has(request)) established.set(request, await authenticate(credentials, headers, requirement, set, options));
      },
      resolve({ request }) {
        return { auth: established.get(request)! };
      },
    }),
  });
};
