/**
 * Rate limits and open-payment caps no test reaches by volume: suites that create or read a
 * lot from one key keep their assertions. `test/security/` runs on the real defaults
 * (`limits: "defaults"`), and tests of the limits set their own.
 */
export const GENEROUS_LIMITS: Record<string, string> = {
  RATE_LIMIT_PUBLIC_KEY_CREATES: "1000000",
  RATE_LIMIT_PUBLIC_KEY_READS: "1000000",
  RATE_LIMIT_API_KEY_CREATES: "1000000",
  RATE_LIMIT_API_KEY_READS: "1000000",
  RATE_LIMIT_IP_CREATES: "1000000",
  RATE_LIMIT_IP_READS: "1000000",
  MAX_OPEN_PAYMENTS: "10000000",
  MAX_OPEN_PAYMENTS_PUBLIC_KEY: "10000000",
};
