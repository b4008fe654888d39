-- Z reports claim what they count (issue 16). A Z report sets z_report_id on every settled sale,
-- offline verdict, gift-card sale and refund of its terminal that no report holds yet, in its own
-- transaction. A row whose transaction commits after that UPDATE's snapshot stays NULL and falls
-- into the next report, so each row belongs to exactly one Z report: a window by settlement time
-- lost a sale settled before the close but committed after it. The reference is checked at
-- commit: the report's row is written after its claims, since its figures are what it claimed.
ALTER TABLE pos_sessions ADD COLUMN z_report_id text REFERENCES terminal_reports (id) DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE offline_payments ADD COLUMN z_report_id text REFERENCES terminal_reports (id) DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE terminal_gift_card_sales ADD COLUMN z_report_id text REFERENCES terminal_reports (id) DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE sale_refunds ADD COLUMN z_report_id text REFERENCES terminal_reports (id) DEFERRABLE INITIALLY DEFERRED;

-- Reports closed before this migration keep what their windows counted.
UPDATE pos_sessions s SET z_report_id = r.id FROM terminal_reports r
  WHERE s.terminal_id = r.terminal_id AND s.status = 'completed' AND s.ended_at > r.opened_at AND s.ended_at <= r.closed_at;
UPDATE offline_payments p SET z_report_id = r.id FROM terminal_reports r
  WHERE p.terminal_id = r.terminal_id AND p.settled_at > r.opened_at AND p.settled_at <= r.closed_at;
UPDATE terminal_gift_card_sales g SET z_report_id = r.id FROM terminal_reports r
  WHERE g.terminal_id = r.terminal_id AND g.status = 'accepted' AND g.settled_at > r.opened_at AND g.settled_at <= r.closed_at;
UPDATE sale_refunds f SET z_report_id = r.id FROM terminal_reports r
  WHERE f.sale_terminal_id = r.terminal_id AND f.created_at > r.opened_at AND f.created_at <= r.closed_at;

-- What the open day holds: the X report reads these, the next Z report claims them.
CREATE INDEX pos_sessions_unreported ON pos_sessions (terminal_id) WHERE z_report_id IS NULL AND status = 'completed';
CREATE INDEX offline_payments_unreported ON offline_payments (terminal_id) WHERE z_report_id IS NULL;
CREATE INDEX terminal_gift_card_sales_unreported ON terminal_gift_card_sales (terminal_id) WHERE z_report_id IS NULL AND status = 'accepted';
CREATE INDEX sale_refunds_unreported ON sale_refunds (sale_terminal_id) WHERE z_report_id IS NULL;
