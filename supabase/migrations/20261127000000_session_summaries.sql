-- Compaction: when a session's history passes a budget, its older messages are
-- summarised and the summary is kept here, so the planner sees the summary plus
-- the recent messages instead of losing the older ones. One row per session and
-- owner; the summary covers the session's messages up to covered_seq
-- (chat_messages.seq). Every change is conditional on the version the writer
-- read, so two requests compacting at once cannot both win.

create table if not exists public.session_summaries (
  owner text not null,
  user_id uuid default auth.uid(),
  session_id text not null check (char_length(session_id) between 1 and 200),
  summary text not null check (char_length(summary) <= 64000),
  covered_seq bigint not null,
  covered_messages integer not null default 0,
  version integer not null default 1,
  updated_at timestamptz not null default clock_timestamp(),
  primary key (owner, session_id)
);
create index if not exists session_summaries_user_idx on public.session_summaries (user_id);

alter table public.session_summaries enable row level security;
drop policy if exists session_summaries_select_own on public.session_summaries;
create policy session_summaries_select_own on public.session_summaries
  for select to authenticated using (user_id = (select auth.uid()));
drop policy if exists session_summaries_insert_own on public.session_summaries;
create policy session_summaries_insert_own on public.session_summaries
  for insert to authenticated
  with check (user_id = (select auth.uid()) and owner = 'user:' || (select auth.uid())::text);
drop policy if exists session_summaries_update_own on public.session_summaries;
create policy session_summaries_update_own on public.session_summaries
  for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
drop policy if exists session_summaries_delete_own on public.session_summaries;
create policy session_summaries_delete_own on public.session_summaries
  for delete to authenticated using (user_id = (select auth.uid()));
grant select, insert, update, delete on public.session_summaries to authenticated;
grant all on public.session_summaries to service_role;

-- The session's summary, and which of its last p_recent_limit messages the
-- summary already covers (the planner is not shown those twice).
create or replace function public.load_session_summary(
  p_session_id text,
  p_owner text,
  p_recent_limit integer default 10
)
returns table (
  summary text,
  covered_seq bigint,
  covered_messages integer,
  version integer,
  covered_recent uuid[]
)
language plpgsql stable
set search_path = public, pg_temp
as $$
#variable_conflict use_column
declare
  owner_key text := public.chat_owner(p_owner);
begin
  return query
    select s.summary, s.covered_seq, s.covered_messages, s.version,
           coalesce((
             select array_agg(r.id) from (
               select m.id, m.seq from public.chat_messages m
               where m.owner = owner_key and m.session_id = p_session_id
               order by m.seq desc
               limit p_recent_limit
             ) r
             where r.seq <= s.covered_seq
           ), '{}')
    from public.session_summaries s
    where s.owner = owner_key and s.session_id = p_session_id;
end
$$;

-- The session's messages after p_after_seq, oldest first (what a summary does not cover yet).
create or replace function public.session_history(
  p_session_id text,
  p_owner text,
  p_after_seq bigint default 0,
  p_limit integer default 500
)
returns table (id uuid, seq bigint, role text, content text)
language sql stable
set search_path = public, pg_temp
as $$
  select m.id, m.seq, m.role, m.content
  from public.chat_messages m
  where m.owner = public.chat_owner(p_owner)
    and m.session_id = p_session_id
    and m.seq > p_after_seq
  order by m.seq
  limit p_limit
$$;

-- Stores a session's summary if it is still at p_expected_version (0: none
-- yet); returns the new version, or null when another writer got there first.
create or replace function public.save_session_summary(
  p_session_id text,
  p_owner text,
  p_summary text,
  p_covered_seq bigint,
  p_covered_messages integer,
  p_expected_version integer
)
returns integer
language plpgsql volatile
set search_path = public, pg_temp
as $$
declare
  owner_key text := public.chat_owner(p_owner);
  saved integer;
begin
  if p_expected_version = 0 then
    insert into public.session_summaries
      (owner, session_id, summary, covered_seq, covered_messages)
    values (owner_key, p_session_id, p_summary, p_covered_seq, p_covered_messages)
    on conflict (owner, session_id) do nothing
    returning version into saved;
  else
    update public.session_summaries
    set summary = p_summary, covered_seq = p_covered_seq, covered_messages = p_covered_messages,
        version = version + 1, updated_at = clock_timestamp()
    where owner = owner_key and session_id = p_session_id and version = p_expected_version
    returning version into saved;
  end if;
  return saved;
end
$$;

revoke execute on function public.load_session_summary(text, text, integer) from public, anon;
revoke execute on function public.session_history(text, text, bigint, integer) from public, anon;
revoke execute on function public.save_session_summary(text, text, text, bigint, integer, integer)
  from public, anon;
grant execute on function public.load_session_summary(text, text, integer)
  to authenticated, service_role;
grant execute on function public.session_history(text, text, bigint, integer)
  to authenticated, service_role;
grant execute on function public.save_session_summary(text, text, text, bigint, integer, integer)
  to authenticated, service_role;
