-- The language a terminal speaks: its kiosk screens (the cashier may switch on screen) and its
-- receipts. An ISO 639-1 code; the API accepts only languages with a catalogue
-- (shared/src/i18n), so the column checks the shape only and a new language needs no migration.
ALTER TABLE terminals ADD COLUMN language text NOT NULL DEFAULT 'en' CHECK (language ~ '^[a-z]{2}$');
