-- Wallet money (issue 26, items 1 and 2; docs/wallet-money.md).
--
-- Top-ups ride on the mobile-money collections of migration 037: a collection now has a purpose,
-- a till sale (as before) or a wallet top-up. A top-up has no merchant; merchant_wallet_id names
-- the wallet the collection credits (the merchant's for a till sale, the holder's own for a
-- top-up). fee is what the holder pays on top of amount (the phone is asked for amount + fee; the
-- wallet is credited amount; the fee goes to the platform's fees account).
ALTER TABLE pos_collections ADD COLUMN purpose text NOT NULL DEFAULT 'till_sale' CHECK (purpose IN ('till_sale', 'wallet_top_up'));
ALTER TABLE pos_collections ADD COLUMN fee bigint NOT NULL DEFAULT 0 CHECK (fee >= 0);
ALTER TABLE pos_collections ALTER COLUMN merchant_id DROP NOT NULL;
ALTER TABLE pos_collections ADD CONSTRAINT pos_collections_till_has_merchant CHECK (purpose <> 'till_sale' OR merchant_id IS NOT NULL);
CREATE INDEX pos_collections_wallet_top_ups ON pos_collections (merchant_wallet_id, mode, created_at DESC) WHERE purpose = 'wallet_top_up';

-- Withdrawals are payments of their own kind: a payout from the holder's wallet (source_wallet_id)
-- to her mobile money number or bank account, through the payment scheduler like any payout. They
-- belong to no merchant (merchant_id NULL) and send no merchant event; the holder hears of them in
-- her wallet notifications.
ALTER TABLE payments ALTER COLUMN merchant_id DROP NOT NULL;
ALTER TABLE payments DROP CONSTRAINT payments_kind_check;
ALTER TABLE payments ADD CONSTRAINT payments_kind_check CHECK (kind IN ('payout', 'link', 'payroll', 'withdrawal'));
ALTER TABLE payments ADD CONSTRAINT payments_merchant_or_withdrawal CHECK (kind = 'withdrawal' OR merchant_id IS NOT NULL);
CREATE INDEX payments_wallet_withdrawals ON payments (source_wallet_id, created_at DESC) WHERE kind = 'withdrawal';
