-- Live payouts still open at their provider (pending or processing), oldest first: the ones past
-- RAIL_ATTENTION_HOURS are listed for an operator (GET /api/admin/payments/attention) and
-- counted in tapline_payments_needing_attention.
CREATE INDEX payments_provider_open ON payments (created_at) WHERE scenario = 'provider' AND status IN ('pending', 'processing');
