-- Audit rows cost less to write, on Postgres and on PGlite alike.
--
-- record_mcp_events evaluated the writer's identity per row: chat_owner() has
-- its own search_path, so it is never inlined, and each call set and restored
-- that setting. As uncorrelated subqueries, both are evaluated once per
-- statement (an InitPlan), whatever the number of rows.
--
-- MCP calls have no session, so their rows no longer enter the session index;
-- the loop's rows, which have one, still do.

create or replace function public.record_mcp_events(
  p_caller text,
  p_source text,
  p_session_id text,
  p_events jsonb
)
returns void
language sql volatile security definer
set search_path = public, pg_temp
as $$
  insert into public.mcp_events
    (user_id, caller, source, session_id, request_id, tool, input, output, success, error, duration_ms)
  select (select auth.uid()), (select public.chat_owner(p_caller)), p_source, p_session_id,
         e.request_id, e.tool, e.input, e.output, e.success, e.error, e.duration_ms
  from jsonb_to_recordset(p_events) as e(
    request_id text, tool text, input jsonb, output jsonb,
    success boolean, error text, duration_ms double precision
  )
$$;

do $$
begin
  if exists (
    select 1 from pg_indexes
    where schemaname = 'public' and indexname = 'mcp_events_session_idx'
      and indexdef not like '%WHERE%'
  ) then
    drop index public.mcp_events_session_idx;
  end if;
end
$$;
create index if not exists mcp_events_session_idx
  on public.mcp_events (session_id, created_at) where session_id is not null;
