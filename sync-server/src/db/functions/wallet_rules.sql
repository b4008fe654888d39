-- "A merchant cannot pay itself": the payer's wallet is the wallet of the merchant being paid.
-- The rule's SQL form, for pos_tap, which learns a tap's payer (the tag's wallet) only inside the
-- database. Every TypeScript surface (checkout, payment links, offline taps and vouchers) asks
-- modules/wallets payerIsMerchant(), the same comparison; modules/wallets/payer-is-merchant.test.ts
-- holds the two to the same answers.
CREATE OR REPLACE FUNCTION payer_is_merchant(p_payer_wallet_id text, p_merchant_wallet_id text)
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT p_payer_wallet_id = p_merchant_wallet_id
$$;
