-- Split tender offline (issue 25 item 4, docs/till.md "Split tender offline"): a till sale may be
-- paid partly by an offline tap (tender kind `offline_tap`, naming the offline payment the kiosk
-- recorded), which the server settles on its own when it syncs and may decline. The sale, which
-- happened, is recorded all the same: `unpaid` is what its tenders did not pay because the server
-- declined them at sync (minor units), the merchant's shortfall. It is set when the sale is
-- recorded after its declined tap, or later, when the tap is declined after the sale.
ALTER TABLE till_sales ADD COLUMN unpaid bigint NOT NULL DEFAULT 0 CHECK (unpaid >= 0);
-- The offline payment of such a tap names the till sale it pays part of (the kiosk's split sale id),
-- as a POS session opened with tenderOf does: given back without a manager PIN while unclaimed.
ALTER TABLE offline_payments ADD COLUMN tender_of uuid;
CREATE INDEX till_sales_unpaid ON till_sales (merchant_id, mode) WHERE unpaid > 0;
