-- Split tenders (issue 25): a till sale paid partly by a Tapline wallet tap names the POS session
-- that took that part. A session pays at most one till sale: the claim is its primary key. The
-- session keeps its own record and ledger transfer; its refunds go through the till sale.
CREATE TABLE till_sale_tender_claims (
  reference text PRIMARY KEY,
  sale_id uuid NOT NULL REFERENCES till_sales (id) DEFERRABLE INITIALLY DEFERRED,
  amount bigint NOT NULL CHECK (amount > 0)
);
CREATE INDEX till_sale_tender_claims_sale ON till_sale_tender_claims (sale_id);
