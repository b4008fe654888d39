-- Z reports (issue 16): a terminal's closed days, numbered 1, 2, 3... per terminal, never changed.
CREATE TABLE terminal_reports (
  id text PRIMARY KEY,
  terminal_id text NOT NULL REFERENCES terminals (id),
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  number integer NOT NULL CHECK (number > 0),
  opened_at timestamptz NOT NULL,
  closed_at timestamptz NOT NULL,
  report jsonb NOT NULL,
  UNIQUE (terminal_id, number)
);

CREATE FUNCTION terminal_reports_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'terminal reports are immutable once closed';
END;
$$;
CREATE TRIGGER terminal_reports_immutable BEFORE UPDATE OR DELETE ON terminal_reports
  FOR EACH ROW EXECUTE FUNCTION terminal_reports_immutable();
