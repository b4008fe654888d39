-- Several sync servers on one PostgreSQL: socket.io's PostgreSQL adapter carries messages between
-- them by NOTIFY, and a message too large for a notification (8,000 bytes) as a row here, which it
-- deletes after 30 seconds. The table's name and shape are the adapter's.
CREATE TABLE socket_io_attachments (
  id bigserial UNIQUE,
  created_at timestamptz DEFAULT now(),
  payload bytea
);
