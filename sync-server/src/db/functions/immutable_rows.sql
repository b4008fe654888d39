-- Rows that record money that moved are never updated or deleted (triggers of migrations 005, 010).
CREATE OR REPLACE FUNCTION gift_card_redemptions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'gift card redemptions are immutable';
END
$$;

CREATE OR REPLACE FUNCTION subscription_charges_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'subscription charges are immutable';
END
$$;
