-- tag_count_taps (a plpgsql function, applied from db/functions/ for part of one session) cost the
-- offline catch-up a third of its speed; counting is modules/wearables countTaps again (two
-- prepared statements) and pos_tap's one UPDATE of the tag.
DROP FUNCTION IF EXISTS tag_count_taps(text[], text, timestamptz);
