-- A tag's no-PIN day budget: what taps without the holder's PIN took from it on each UTC day.
-- One budget per tag, spent by online taps (pos_tap) and by offline taps when they settle
-- (offline_post_taps); modules/wearables/README.md states the rule.
--
-- The latest day's total is in wearables.no_pin_day / no_pin_spent (pos_tap reads and writes only
-- those, in its one UPDATE); earlier days of the last 31 are in no_pin_history
-- {"YYYY-MM-DD": minor units}. A day in the history is always before no_pin_day.

-- What taps without the PIN took on p_on.
CREATE OR REPLACE FUNCTION no_pin_spent_on(p_day date, p_spent bigint, p_history jsonb, p_on date)
RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN p_day = p_on THEN p_spent
              ELSE coalesce((p_history ->> to_char(p_on, 'YYYY-MM-DD'))::bigint, 0) END
$$;

-- The history once the day p_day (total p_spent) gives way to the later day p_new: p_day joins
-- it, and days 31 or more before p_new are forgotten (no offline payment that old is accepted).
CREATE OR REPLACE FUNCTION no_pin_history_roll(p_history jsonb, p_day date, p_spent bigint, p_new date)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb)
  FROM (SELECT h.key, h.value FROM jsonb_each(p_history) AS h
        UNION ALL
        SELECT to_char(p_day, 'YYYY-MM-DD'), to_jsonb(p_spent) WHERE p_day IS NOT NULL AND p_spent > 0) AS e
  WHERE e.key::date > p_new - 31
$$;

-- The budget after p_amount is spent on the day p_on: the latest day's total grows, a later day
-- starts (the latest moving into the history), or an earlier day's total in the history grows.
-- PL/pgSQL rather than SQL: offline_post_taps calls it once or twice per tap, where an SQL
-- function with OUT parameters is not inlined and was planned again on every call (a third of the
-- database time of a 10,000-tap catch-up); PL/pgSQL keeps its plans per session. offline_post_taps
-- assigns its result (v := no_pin_add(...)) rather than selecting from it: a plain expression
-- runs no SQL statement of its own (one fewer per tap).
CREATE OR REPLACE FUNCTION no_pin_add(
  p_day date, p_spent bigint, p_history jsonb, p_on date, p_amount bigint,
  OUT day date, OUT spent bigint, OUT history jsonb
) LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF p_day IS NULL THEN
    day := p_on;
    spent := p_amount;
    history := p_history;
  ELSIF p_day = p_on THEN
    day := p_day;
    spent := p_spent + p_amount;
    history := p_history;
  ELSIF p_on > p_day THEN
    day := p_on;
    spent := p_amount;
    history := no_pin_history_roll(p_history, p_day, p_spent, p_on);
  ELSE
    day := p_day;
    spent := p_spent;
    history := jsonb_set(p_history, ARRAY[to_char(p_on, 'YYYY-MM-DD')],
                         to_jsonb(coalesce((p_history ->> to_char(p_on, 'YYYY-MM-DD'))::bigint, 0) + p_amount));
  END IF;
END
$$;
