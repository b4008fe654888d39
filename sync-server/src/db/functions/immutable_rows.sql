-- Rows that record money that moved, or a closed day, are never updated or deleted (triggers of migrations 005, 010, 024).
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

-- A closed Z report is never changed (trigger of migration 024).
CREATE OR REPLACE FUNCTION terminal_reports_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'terminal reports are immutable once closed';
END;
$$;
