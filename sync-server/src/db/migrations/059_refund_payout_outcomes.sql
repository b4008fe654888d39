-- A till sale's refund sends its mobile money part back to the phone that paid as a payout. A
-- payout the provider fails (or reverses after success) gave the merchant's wallet its debit back,
-- but the refund kept counting that part as given: the sale's refundable amount stayed lower and
-- the customer could not be paid again. Now the payout's outcome is written on the refund in the
-- transaction that ends the payment (products' outcome listener): its mobile_money tender carries
-- status pending | succeeded | failed (and failureReason), failed_amount is what did not reach the
-- customer, and the sale's refunded and refundable amounts leave it out, so the next refund pays
-- the phone again. failure_z_report_id: the Z report that counted the failure, so a failure after
-- the refund's own Z report closed is counted once, by the next one.
ALTER TABLE sale_refunds ADD COLUMN failed_amount bigint NOT NULL DEFAULT 0 CHECK (failed_amount >= 0 AND failed_amount <= amount);
ALTER TABLE sale_refunds ADD COLUMN failure_reason text;
ALTER TABLE sale_refunds ADD COLUMN failed_at timestamptz;
ALTER TABLE sale_refunds ADD COLUMN failure_z_report_id text REFERENCES terminal_reports (id) DEFERRABLE INITIALLY DEFERRED;

-- Refunds made before: each mobile_money tender takes its payout's state as it is now.
UPDATE sale_refunds r
   SET tenders = (
     SELECT jsonb_agg(
       CASE WHEN e.t->>'kind' = 'mobile_money' AND p.id IS NOT NULL THEN
         e.t || jsonb_build_object('status', CASE WHEN p.status = 'completed' THEN 'succeeded' WHEN p.status IN ('failed', 'reversed') THEN 'failed' ELSE 'pending' END)
             || CASE WHEN p.status IN ('failed', 'reversed') THEN jsonb_build_object('failureReason', p.failure_reason) ELSE '{}'::jsonb END
       ELSE e.t END ORDER BY e.n)
     FROM jsonb_array_elements(r.tenders) WITH ORDINALITY AS e(t, n)
     LEFT JOIN payments p ON p.id = e.t->>'reference')
 WHERE r.tenders @> '[{"kind": "mobile_money"}]'::jsonb;

-- Those whose payout had already failed or been reversed are failed refunds (no event is sent for
-- this history; the next Z report of the sale's till counts the failure, as no report did).
UPDATE sale_refunds r
   SET failed_amount = f.amount, failure_reason = f.reason, failed_at = f.at
  FROM (SELECT r2.id, sum((e.t->>'amount')::int8) AS amount, min(p.failure_reason) AS reason, max(p.updated_at) AS at
          FROM sale_refunds r2
         CROSS JOIN LATERAL jsonb_array_elements(r2.tenders) AS e(t)
          JOIN payments p ON p.id = e.t->>'reference'
         WHERE r2.tenders @> '[{"kind": "mobile_money"}]'::jsonb AND e.t->>'kind' = 'mobile_money' AND p.status IN ('failed', 'reversed')
         GROUP BY r2.id) AS f
 WHERE f.id = r.id;

-- A Z report finds the failures no report has counted yet.
CREATE INDEX sale_refunds_uncounted_failures ON sale_refunds (sale_terminal_id) WHERE failed_amount > 0 AND failure_z_report_id IS NULL;
