/** A UUID as Postgres accepts it for a `uuid` column (ids of payments, merchants, endpoints, transfers). */
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
