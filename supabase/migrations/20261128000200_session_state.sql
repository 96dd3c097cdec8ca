-- Compaction's first read, in one round trip: the session's summary (when it has
-- one), which of its last p_recent_limit messages that summary covers, and how
-- many messages are older than those and not yet summarised, with their size in
-- bytes. A session whose older messages are too few to pass the budget then needs
-- no read of its history. Always one row (summary null when there is none).

create or replace function public.load_session_state(
  p_session_id text,
  p_owner text,
  p_recent_limit integer default 10
)
returns table (
  summary text,
  covered_seq bigint,
  covered_messages integer,
  version integer,
  covered_recent uuid[],
  older_messages integer,
  older_bytes bigint
)
language plpgsql stable
set search_path = public, pg_temp
as $$
#variable_conflict use_column
declare
  owner_key text := public.chat_owner(p_owner);
  s record;
  recent_ids uuid[];
  recent_seqs bigint[];
  first_recent bigint;
begin
  select ss.summary, ss.covered_seq, ss.covered_messages, ss.version into s
  from public.session_summaries ss
  where ss.owner = owner_key and ss.session_id = p_session_id;
  select coalesce(array_agg(r.id), '{}'), coalesce(array_agg(r.seq), '{}'), min(r.seq)
  into recent_ids, recent_seqs, first_recent
  from (
    select m.id, m.seq from public.chat_messages m
    where m.owner = owner_key and m.session_id = p_session_id
    order by m.seq desc
    limit greatest(p_recent_limit, 0)
  ) r;
  return query
    select s.summary, s.covered_seq, s.covered_messages, s.version,
           coalesce((
             select array_agg(x.id) from unnest(recent_ids, recent_seqs) as x(id, seq)
             where x.seq <= s.covered_seq
           ), '{}'),
           o.messages, o.bytes
    from (
      select count(*)::integer as messages, coalesce(sum(octet_length(m.content)), 0)::bigint as bytes
      from public.chat_messages m
      where m.owner = owner_key and m.session_id = p_session_id
        and m.seq > coalesce(s.covered_seq, -1)
        and m.seq < coalesce(first_recent, 9223372036854775807)
    ) o;
end
$$;

revoke execute on function public.load_session_state(text, text, integer) from public, anon;
grant execute on function public.load_session_state(text, text, integer)
  to authenticated, service_role;
