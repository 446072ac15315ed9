/**
 * When an indexed `SplitPaymentExecuted` row (alias `x`) is the payment's (alias `p`): the call
 * the service issued for it (`contract_call`), every parameter equal. `splitPayment` names its
 * own recipients, so anything less would credit a stranger's call that reuses the id. One rule
 * for the read model (`rails/evm/readModel/evidence.ts`) and the analysts' views (`analyticsSource.ts`).
 */
export const splitCallMatch = `p.id = (case when x.payment_id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then x.payment_id::uuid end)
    and x.payment_id = p.contract_call->'params'->>'paymentId'
    and p.chain_id = x.chain_id::text and x.contract = lower(p.contract_call->>'contractAddress')
    and x.token = lower(p.contract_call->'params'->>'token') and x.amount = (p.contract_call->'params'->>'amount')::numeric
    and x.recipient1 = lower(p.contract_call->'params'->>'recipient1') and x.recipient1_percentage = (p.contract_call->'params'->>'recipient1Percentage')::int
    and x.recipient2 = lower(p.contract_call->'params'->>'recipient2') and x.recipient2_percentage = (p.contract_call->'params'->>'recipient2Percentage')::int
    and x.recipient3 = lower(p.contract_call->'params'->>'recipient3') and x.recipient3_percentage = (p.contract_call->'params'->>'recipient3Percentage')::int`;
