-- Word statistics stay within their tenant. chat_uncommon_lexemes read pg_stats as
-- security definer, and every signed-in user may call it (through PostgREST, and
-- through hybrid_match_chat_messages in a scope past 2,000 messages), so a word that
-- only another user writes, often, could be told apart from a word nobody writes.
--
-- It now runs with its caller's rights. The server's own role (which reads across
-- owners anyway) still asks the table's statistics; a role under row level security
-- — a signed-in user, for whom pg_stats hides the table — gets how often each word is
-- in a sample of their own messages: 1% or more of it is common, as before. The
-- function's name, arguments and result are unchanged.

create or replace function public.chat_uncommon_lexemes(p_lexemes text[])
returns text[]
language plpgsql stable security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  sample_size constant integer := 1000;
  uncommon text[];
begin
  if not row_security_active('public.chat_messages') then
    select coalesce(
      array_agg(w.lexeme) filter (where coalesce(c.freq, 0) < 0.01),
      (array_agg(w.lexeme order by c.freq))[1:1]
    ) into uncommon
    from unnest(p_lexemes) as w(lexeme)
    left join (
      select e.lexeme, e.freq
      from pg_stats s,
           unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) as e(lexeme, freq)
      where s.schemaname = 'public' and s.tablename = 'chat_messages' and s.attname = 'fts'
    ) c on c.lexeme = w.lexeme;
    return uncommon;
  end if;
  with mine as (
    select tsvector_to_array(m.fts) as lexemes
    from public.chat_messages m
    where m.owner = 'user:' || auth.uid()::text and m.role = 'user'
    limit sample_size
  ),
  counted as (
    select w.lexeme,
           count(m.lexemes)::double precision / greatest((select count(*) from mine), 1) as freq
    from unnest(p_lexemes) as w(lexeme)
    left join mine m on w.lexeme = any (m.lexemes)
    group by w.lexeme
  )
  select coalesce(
    array_agg(c.lexeme) filter (where c.freq < 0.01),
    (array_agg(c.lexeme order by c.freq))[1:1]
  ) into uncommon
  from counted c;
  return uncommon;
end
$$;
